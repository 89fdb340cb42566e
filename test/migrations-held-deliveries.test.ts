/**
 * Migration 019 on the engine of this run: the waiting deliveries of switched-off subscriptions are
 * held, and webhooks get switched_at; its rollback gives them a due time again (test/migrations.test.ts
 * runs the others).
 */
import { expect } from 'chai';
import { createScratchDatabase, type TestDatabase } from './helpers/database.js';
import { migrateLatest, migrateTo, migrationSource } from '../db/migrations/index.js';
import * as build from '../db/seeds/builders.js';
import { insertReturningId } from '../src/platform/db/database.js';

describe('019: the waiting deliveries of a switched-off subscription are held', () => {
  let old: TestDatabase;

  before(async () => {
    old = await createScratchDatabase();
    await migrateTo(old.db, '018_reference_codes_compare_exactly');
  });

  after(async () => {
    await old?.close();
  });

  it('When migrated, Then the pending and retrying deliveries of subscriptions that are off lose their due time and no other does, and webhooks get switched_at; rolled back, they are due again and the column goes', async () => {
    const db = old.db;
    const at = '2026-11-01 10:00:00.000000';
    const company = await build.insertCompany(db, { name: 'C', type: 'client' });
    const webhook = (active: boolean) =>
      insertReturningId(db, 'webhooks', { company_id: company, url: 'https://example.com/h', events: '["*"]', description: null, secret: 's', active, created_at: at, updated_at: at });
    const on = await webhook(true);
    const off = await webhook(false);
    let n = 0;
    const delivery = (webhookId: number, status: string, next: string | null) =>
      insertReturningId(db, 'webhook_deliveries', {
        webhook_id: webhookId, event_id: `evt_${++n}`, event_type: 'article.created', payload: '{}', status, attempts: status === 'pending' ? 0 : 1, next_attempt_at: next, created_at: at, updated_at: at,
      });
    const ids = {
      onPending: await delivery(on, 'pending', at), onRetrying: await delivery(on, 'retrying', at),
      offPending: await delivery(off, 'pending', at), offRetrying: await delivery(off, 'retrying', at), offDelivered: await delivery(off, 'delivered', null),
    };
    const due = async (): Promise<Record<string, boolean>> => {
      const rows = await db('webhook_deliveries').select('id', 'next_attempt_at');
      const byId = new Map(rows.map((r: { id: number | string; next_attempt_at: string | null }) => [Number(r.id), r.next_attempt_at !== null]));
      return Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, byId.get(id)!]));
    };

    await migrateLatest(db);
    expect(await due()).to.deep.equal({ onPending: true, onRetrying: true, offPending: false, offRetrying: false, offDelivered: false });
    expect(await db.schema.hasColumn('webhooks', 'switched_at')).to.equal(true);
    await db.migrate.down({ migrationSource });
    // Every delivery is still there (a rebuilt webhooks table would have taken them with it).
    expect(await due()).to.deep.equal({ onPending: true, onRetrying: true, offPending: true, offRetrying: true, offDelivered: false });
    expect(await db.schema.hasColumn('webhooks', 'switched_at')).to.equal(false);
    await migrateLatest(db);
  });
});
