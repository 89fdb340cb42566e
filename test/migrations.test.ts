/** The migrations run forwards and backwards on the engine of this run (SQLite or MariaDB). */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createScratchDatabase, type TestDatabase } from './helpers/database.js';
import { migrateLatest, rollbackAll } from '../db/migrations/index.js';

const TABLES = [
  'companies', 'users', 'company_users', 'company_modules', 'personal_access_tokens', 'partners', 'warehouses', 'units', 'heartbeats',
  'articles', 'outbox_events', 'idempotency_keys', 'purchase_orders', 'purchase_order_items', 'receptions', 'reception_items',
  'stock_balances', 'stock_movements', 'sales_orders', 'sales_order_items', 'sales_order_status_history', 'returns', 'return_items',
  'webhooks', 'webhook_deliveries',
];

async function tablesOf(db: Knex): Promise<string[]> {
  const present: string[] = [];
  for (const table of TABLES) if (await db.schema.hasTable(table)) present.push(table);
  return present;
}

describe('Migrations', () => {
  let scratch: TestDatabase;

  before(async () => {
    scratch = await createScratchDatabase();
  });

  after(async () => {
    await scratch.close();
  });

  it('When migrated, rolled back and migrated again, Then every table comes and goes and comes back', async () => {
    await migrateLatest(scratch.db);
    expect(await tablesOf(scratch.db)).to.deep.equal(TABLES);
    await rollbackAll(scratch.db);
    expect(await tablesOf(scratch.db)).to.deep.equal([]);
    await migrateLatest(scratch.db);
    expect(await tablesOf(scratch.db)).to.deep.equal(TABLES);
  });

  it('When a unique key is broken, Then the database refuses it', async () => {
    const row = { name: 'dup', email: 'dup@example.test', password_hash: 'x', created_at: '2026-01-01 00:00:00.000000', updated_at: '2026-01-01 00:00:00.000000' };
    await scratch.db('users').insert(row);
    let failed = false;
    await scratch.db('users').insert(row).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('When a time is stored with microseconds, Then it reads back exactly', async () => {
    await scratch.db('heartbeats').insert({ name: 'micro', last_ping_at: '2026-11-21 10:00:00.123456' });
    const row = await scratch.db('heartbeats').where('name', 'micro').first();
    expect(row.last_ping_at).to.equal('2026-11-21 10:00:00.123456');
  });
});
