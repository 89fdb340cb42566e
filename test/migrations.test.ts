/** The migrations run forwards and backwards on the engine of this run (SQLite or MariaDB). */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createScratchDatabase, type TestDatabase } from './helpers/database.js';
import { migrateLatest, migrateTo, migrationSource, rollbackAll } from '../db/migrations/index.js';
import * as build from '../db/seeds/builders.js';
import { serviceRunEnd } from '../db/migrations/008_article_id_sequence.js';
import { exactCollation, isMariaDb } from '../db/migrations/016_codes_compare_exactly.js';
import { insertReturningId } from '../src/platform/db/database.js';
import { hashPassword, verifyPassword } from '../src/components/auth/passwords.js';
import { testEnv } from './helpers/test-env.js';

const TABLES = [
  'companies', 'users', 'company_users', 'company_modules', 'personal_access_tokens', 'partners', 'warehouses', 'units', 'heartbeats',
  'articles', 'outbox_events', 'idempotency_keys', 'purchase_orders', 'purchase_order_items', 'receptions', 'reception_items',
  'stock_balances', 'stock_movements', 'sales_orders', 'sales_order_items', 'sales_order_status_history', 'returns', 'return_items',
  'webhooks', 'webhook_deliveries', 'article_id_sequence', 'shipments', 'shipment_items', 'stock_adjustments', 'stock_adjustment_items',
  'stock_transfers', 'stock_transfer_items',
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

  it("When the webhook worker looks for the events waiting for their fan-out, Then the database can use the index of both columns before the id (015), not the one on fan_out_failed_at that every event matches", async () => {
    await migrateLatest(scratch.db);
    const waiting = scratch.db('outbox_events').select('id', 'event_id', 'company_id', 'type', 'occurred_at').whereNull('dispatched_at').whereNull('fan_out_failed_at').orderBy('id').limit(100).toSQL().toNative();
    const index = 'outbox_events_dispatched_at_fan_out_failed_at_id_index';
    if (testEnv.engine === 'sqlite') {
      const plan = (await scratch.db.raw(`EXPLAIN QUERY PLAN ${waiting.sql}`, waiting.bindings as never[])) as Array<{ detail: string }>;
      expect(plan.map((step) => step.detail).join('; ')).to.include(`USING INDEX ${index} (dispatched_at=? AND fan_out_failed_at=?)`);
    } else {
      const [plan] = (await scratch.db.raw(`EXPLAIN ${waiting.sql}`, waiting.bindings as never[])) as [Array<{ possible_keys: string | null }>];
      expect(plan[0]!.possible_keys?.split(',')).to.include(index);
    }
  });

  describe('016: codes compare exactly', () => {
    let old: TestDatabase;

    before(async () => {
      old = await createScratchDatabase();
      await migrateTo(old.db, '015_outbox_waiting_index');
    });

    after(async () => {
      await old?.close();
    });

    it('When codes differ only by trailing spaces, Then after 016 they are two codes on both engines, each found by itself; columns keep their nullability and defaults', async () => {
      const db = old.db;
      const now = '2026-01-01 00:00:00.000000';
      const provider = await build.insertCompany(db, { name: 'P', type: 'provider' });
      const client = await build.insertCompany(db, { name: 'C', type: 'client', provider_id: provider });
      const warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'W', name: 'W' });
      const article = (code: string) => ({ company_id: client, article_code: code, description: code, um3pl: 'BUC', created_at: now, updated_at: now });
      await db('articles').insert(article('PAD'));

      await migrateLatest(db);

      await db('articles').insert(article('PAD '));
      expect((await db('articles').where('article_code', 'PAD').select('article_code')).map((r) => r.article_code)).to.deep.equal(['PAD']);
      expect((await db('articles').where('article_code', 'PAD ').select('article_code')).map((r) => r.article_code)).to.deep.equal(['PAD ']);
      const id = Number((await db('articles').where('article_code', 'PAD').first('id')).id);
      await db('stock_balances').insert({ company_id: client, warehouse_id: warehouse, article_id: id, stock_type: 'STOC_OK', quantity: 1000, reserved: 0, updated_at: now });
      expect((await db('stock_balances').first('lot')).lot, 'the lot column keeps its default').to.equal('');
      const refused = await db('articles').insert({ ...article('NULL-CODE'), article_code: null }).then(() => false, () => true);
      expect(refused, 'article_code stays NOT NULL').to.equal(true);
      if (testEnv.engine === 'mysql') {
        const [rows] = (await db.raw("SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLLATION_NAME = 'utf8mb4_bin'")) as [Array<{ n: number }>];
        expect(Number(rows[0]!.n), 'padded binary columns left').to.equal(0);
      }
    });
  });

  describe('018: warehouse, unit and partner codes compare exactly', () => {
    let old: TestDatabase;

    before(async () => {
      old = await createScratchDatabase();
      await migrateTo(old.db, '017_user_deactivation');
    });

    after(async () => {
      await old?.close();
    });

    const codeCollations = async (db: Knex): Promise<string[]> => {
      const [rows] = (await db.raw(
        "SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND COLUMN_NAME = 'code' AND TABLE_NAME IN ('partners', 'units', 'warehouses') ORDER BY TABLE_NAME",
      )) as [Array<{ c: string }>];
      return rows.map((r) => r.c);
    };

    it('When codes differ by an accent or an emoji, Then after 018 they are two codes on both engines; rolling back refuses, naming them, until one of each is gone, then restores the collation', async () => {
      const db = old.db;
      const provider = await build.insertCompany(db, { name: 'P', type: 'provider' });
      const client = await build.insertCompany(db, { name: 'C', type: 'client', provider_id: provider });
      await build.insertWarehouse(db, { company_id: provider, code: 'WH-É1', name: 'W' });
      const unit = (code: string) => build.insertUnit(db, { company_id: provider, code, name: code, integer_only: true });
      await unit('K😀');
      const before = testEnv.engine === 'mysql' ? await codeCollations(db) : [];

      await migrateTo(db, '018_reference_codes_compare_exactly');

      await build.insertWarehouse(db, { company_id: provider, code: 'WH-E1', name: 'W' });
      await unit('K😁');
      await build.insertPartner(db, { company_id: client, type: 'supplier', name: 'S', code: 'SUP-É' });
      await build.insertPartner(db, { company_id: client, type: 'supplier', name: 'S', code: 'SUP-E' });
      await build.insertPartner(db, { company_id: client, type: 'supplier', name: 'No code' });
      await build.insertPartner(db, { company_id: client, type: 'supplier', name: 'No code either' });
      expect((await db('warehouses').where('code', 'WH-E1').select('code')).map((r) => r.code)).to.deep.equal(['WH-E1']);
      expect((await db('units').where('code', 'K😀').select('code')).map((r) => r.code)).to.deep.equal(['K😀']);
      const refused = await unit('K😁').then(() => false, () => true);
      expect(refused, 'the same code twice is still refused').to.equal(true);
      if (testEnv.engine === 'sqlite') return;

      const exact = exactCollation(await isMariaDb(db));
      expect(before).to.not.include(exact);
      expect(await codeCollations(db)).to.deep.equal([exact, exact, exact]);
      const refusal = await db.migrate.down({ migrationSource }).then(() => undefined, (error: Error) => error.message);
      expect(refusal).to.contain(
        `018_reference_codes_compare_exactly cannot be rolled back: the collation before it takes these codes for one (partners of company ${client}: SUP-É, SUP-E; units of company ${provider}: K😀, K😁; warehouses of company ${provider}: WH-É1, WH-E1); rename or remove one of each first.`,
      );
      expect(await codeCollations(db), 'nothing changed').to.deep.equal([exact, exact, exact]);

      await db('warehouses').where('code', 'WH-E1').delete();
      await db('units').where('code', 'K😁').delete();
      await db('partners').where('code', 'SUP-E').delete();
      await db.migrate.down({ migrationSource });
      expect(await codeCollations(db)).to.deep.equal(before);
      expect(await db('partners').whereNull('code').count({ n: '*' }).first()).to.satisfy((r: { n: number | string }) => Number(r.n) === 2);
      await migrateTo(db, '018_reference_codes_compare_exactly');
    });
  });

  describe('017: users can be deactivated', () => {
    let old: TestDatabase;

    before(async () => {
      old = await createScratchDatabase();
      await migrateTo(old.db, '017_user_deactivation');
    });

    after(async () => {
      await old?.close();
    });

    it('When it is rolled back and migrated again, Then a deactivated user stays locked out throughout (its hash behind a prefix no password verifies) and comes back deactivated with its password', async () => {
      const db = old.db;
      const hash = await hashPassword('long enough');
      const user = (email: string) => ({ name: email, email, password_hash: hash });
      const gone = await build.insertUser(db, user('gone@example.test'));
      const kept = await build.insertUser(db, user('kept@example.test'));
      await db('users').where('id', gone).update({ deactivated_at: '2026-01-01 00:00:00.000000' });
      const hashOf = async (id: number) => (await db('users').where('id', id).first('password_hash')).password_hash as string;

      await db.migrate.down({ migrationSource });
      expect(await db.schema.hasColumn('users', 'deactivated_at')).to.equal(false);
      expect(await verifyPassword('long enough', await hashOf(gone))).to.equal(false);
      expect(await hashOf(kept)).to.equal(hash);

      await migrateLatest(db);
      const rows = await db('users').whereIn('id', [gone, kept]).orderBy('id').select('id', 'password_hash', 'deactivated_at');
      expect(rows.map((r) => [r.password_hash, r.deactivated_at === null])).to.deep.equal([[hash, false], [hash, true]]);
    });
  });

  describe('008: article ids from a sequence of their own', () => {
    let old: TestDatabase;

    before(async () => {
      old = await createScratchDatabase();
      await migrateTo(old.db, '007_webhooks');
    });

    after(async () => {
      await old?.close();
    });

    it('When the service run is read from existing ids, Then gaps of failed inserts count and a chosen id far above does not', () => {
      expect(serviceRunEnd([])).to.equal(0);
      expect(serviceRunEnd([1, 2, 3, 5, 6, 9])).to.equal(9);
      expect(serviceRunEnd([1, 2, 3, 4, 2147483000, 2147483001, 2147483648])).to.equal(4);
      expect(serviceRunEnd([7, 8, 9])).to.equal(0);
    });

    it('When articles beyond 2147483647 exist, Then they get new small ids with every row that names them, and the next article continues the service run', async () => {
      const db = old.db;
      const now = '2026-01-01 00:00:00.000000';
      const provider = await build.insertCompany(db, { name: 'P', type: 'provider' });
      const client = await build.insertCompany(db, { name: 'C', type: 'client', provider_id: provider });
      const warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'W', name: 'W' });
      const article = (id: number, code: string) => ({ id, company_id: client, article_code: code, description: code, um3pl: 'BUC', created_at: now, updated_at: now });
      await db('articles').insert([article(1, 'A1'), article(2, 'A2'), article(4, 'A4'), article(2147483000, 'CHOSEN'), article(2147483001, 'PUSHED'), article(2147483648, 'BEYOND')]);
      await db('stock_balances').insert({ company_id: client, warehouse_id: warehouse, article_id: 2147483648, stock_type: 'STOC_OK', quantity: 5000, reserved: 0, updated_at: now });
      await db('stock_movements').insert({ company_id: client, warehouse_id: warehouse, article_id: 2147483648, stock_type: 'STOC_OK', delta: 5000, cause: 'reception', document_kind: 'reception', document_id: 1, created_at: now });

      await migrateLatest(db);

      const rows = await db('articles').select('id', 'article_code').orderBy('id');
      expect(rows.map((r) => [Number(r.id), r.article_code])).to.deep.equal([[1, 'A1'], [2, 'A2'], [4, 'A4'], [5, 'BEYOND'], [2147483000, 'CHOSEN'], [2147483001, 'PUSHED']]);
      expect((await db('stock_balances').select('article_id')).map((r) => Number(r.article_id))).to.deep.equal([5]);
      expect((await db('stock_movements').select('article_id')).map((r) => Number(r.article_id))).to.deep.equal([5]);
      const next = await build.insertArticle(db, { company_id: client, article_code: 'NEXT', description: 'n', um3pl: 'BUC' });
      expect(next).to.equal(6);
    });
  });

  describe('012: shipments, delivered quantities and holds', () => {
    let old: TestDatabase;
    const now = '2026-01-01 00:00:00.000000';
    const deliveredAt = '2026-03-04 05:06:07.123456';
    let orders: { delivered: number; picked: number };
    let lines: { delivered: number[]; picked: number[] };

    before(async () => {
      old = await createScratchDatabase();
      const db = old.db;
      await migrateTo(db, '011_events_feed');
      const provider = await build.insertCompany(db, { name: 'P', type: 'provider' });
      const client = await build.insertCompany(db, { name: 'C', type: 'client', provider_id: provider });
      const warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'W', name: 'W' });
      const partner = await build.insertPartner(db, { company_id: client, type: 'client', name: 'Customer' });
      const article = await build.insertArticle(db, { company_id: client, article_code: 'A', description: 'a', um3pl: 'BUC' });
      const order = async (code: string, status: string, quantities: number[]): Promise<[number, number[]]> => {
        const id = await insertReturningId(db, 'sales_orders', { company_id: client, partner_id: partner, source_warehouse_id: warehouse, stock_type: 'STOC_OK', internal_code: code, status, created_at: now, updated_at: now });
        const items: number[] = [];
        for (const quantity of quantities) items.push(await insertReturningId(db, 'sales_order_items', { sales_order_id: id, article_id: article, um3pl: 'BUC', quantity }));
        for (const step of ['new', 'picking', 'picked', ...(status === 'delivered' ? ['delivered'] : [])]) {
          await db('sales_order_status_history').insert({ sales_order_id: id, status: step, user_id: null, at: step === 'delivered' ? deliveredAt : now });
        }
        return [id, items];
      };
      const [delivered, deliveredLines] = await order('SO-D', 'delivered', [3000, 1500]);
      const [picked, pickedLines] = await order('SO-P', 'picked', [2000]);
      orders = { delivered, picked };
      lines = { delivered: deliveredLines, picked: pickedLines };
      await migrateTo(db, '012_shipments');
    });

    after(async () => {
      await old?.close();
    });

    it('When orders delivered before it are migrated, Then their lines are fully delivered with one shipment of all of them, shipped when they were delivered; open orders have delivered nothing and none is held', async () => {
      const db = old.db;
      const items = await db('sales_order_items').orderBy('id').select('id', 'quantity', 'delivered_quantity');
      expect(items.map((i) => [Number(i.id), Number(i.delivered_quantity)])).to.deep.equal([[lines.delivered[0], 3000], [lines.delivered[1], 1500], [lines.picked[0], 0]]);
      const shipments = await db('shipments').select('*');
      expect(shipments).to.have.length(1);
      expect(shipments[0]).to.deep.include({ sales_order_id: orders.delivered, carrier: null, tracking_number: null, internal_code: null });
      for (const column of ['shipped_at', 'created_at', 'updated_at']) expect(String(shipments[0][column] instanceof Date ? shipments[0][column].toISOString() : shipments[0][column])).to.match(/^2026-03-04[T ]05:06:07\.123/);
      const shipped = await db('shipment_items').orderBy('id').select('shipment_id', 'sales_order_item_id', 'quantity');
      expect(shipped.map((i) => [Number(i.shipment_id), Number(i.sales_order_item_id), Number(i.quantity)])).to.deep.equal([
        [shipments[0].id, lines.delivered[0], 3000],
        [shipments[0].id, lines.delivered[1], 1500],
      ]);
      expect((await db('sales_orders').orderBy('id').select('on_hold', 'hold_reason')).map((o) => [Boolean(o.on_hold), o.hold_reason])).to.deep.equal([[false, null], [false, null]]);
    });

    it('When it is rolled back while an order is partially delivered, Then it refuses and names why; once none is, it rolls back and its columns and tables are gone', async () => {
      const db = old.db;
      await db('sales_orders').where('id', orders.picked).update({ status: 'partially_delivered' });
      const refusal = await db.migrate.down({ migrationSource }).then(() => undefined, (error: Error) => error.message);
      expect(refusal).to.contain('012_shipments cannot be rolled back: 1 sales orders are partially_delivered or closed');
      expect(await db.schema.hasTable('shipments')).to.equal(true);
      await db('sales_orders').where('id', orders.picked).update({ status: 'picked' });
      await db.migrate.down({ migrationSource });
      expect(await db.schema.hasTable('shipments')).to.equal(false);
      expect(await db.schema.hasTable('shipment_items')).to.equal(false);
      expect(await db.schema.hasColumn('sales_order_items', 'delivered_quantity')).to.equal(false);
      expect(await db.schema.hasColumn('sales_orders', 'on_hold')).to.equal(false);
      expect(await db.schema.hasColumn('sales_orders', 'hold_reason')).to.equal(false);
      expect((await db('sales_orders').orderBy('id').select('id', 'status')).map((o) => [o.id, o.status])).to.deep.equal([[orders.delivered, 'delivered'], [orders.picked, 'picked']]);
      expect((await db('sales_order_items').count({ n: '*' }).first())!.n).to.satisfy((n: number | string) => Number(n) === 3);
    });
  });

  describe('013: the ledger made readable', () => {
    let old: TestDatabase;

    before(async () => {
      old = await createScratchDatabase();
      await migrateTo(old.db, '011_events_feed');
    });

    after(async () => {
      await old?.close();
    });

    it('When movements exist before it, Then each gets the balance after it (its running sum in ledger order) and a feed place in id order, under a horizon that never falls', async () => {
      const db = old.db;
      const provider = await build.insertCompany(db, { name: 'P', type: 'provider' });
      const client = await build.insertCompany(db, { name: 'C', type: 'client', provider_id: provider });
      const warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'W', name: 'W' });
      const a = await build.insertArticle(db, { company_id: client, article_code: 'A', description: 'a', um3pl: 'BUC' });
      const b = await build.insertArticle(db, { company_id: client, article_code: 'B', description: 'b', um3pl: 'BUC' });
      const movement = (article: number, stockType: string, delta: number, at: string) => ({
        company_id: client, warehouse_id: warehouse, article_id: article, stock_type: stockType, delta, cause: 'reception', document_kind: 'reception', document_id: 1, created_at: at,
      });
      await db('stock_movements').insert([
        movement(a, 'STOC_OK', 5000, '2026-01-01 00:00:02.000000'),
        movement(b, 'STOC_OK', 7000, '2026-01-01 00:00:01.000000'),
        movement(a, 'STOC_OK', -2000, '2026-01-01 00:00:03.000000'),
        movement(a, 'STOC_DEFECT', 1000, '2026-01-01 00:00:00.500000'),
        movement(a, 'STOC_OK', 4000, '2026-01-01 00:00:04.000000'),
      ]);

      await migrateLatest(db);

      const rows = await db('stock_movements').orderBy('id').select('id', 'quantity_after', 'feed_seq', 'feed_horizon');
      expect(rows.map((r) => Number(r.quantity_after))).to.deep.equal([5000, 7000, 3000, 1000, 7000]);
      expect(rows.map((r) => Number(r.feed_seq))).to.deep.equal(rows.map((r) => Number(r.id)));
      const horizons = rows.map((r) => (r.feed_horizon instanceof Date ? r.feed_horizon.toISOString().slice(11, 19) : String(r.feed_horizon).slice(11, 19)));
      expect(horizons).to.deep.equal(['00:00:02', '00:00:02', '00:00:03', '00:00:03', '00:00:04']);
      const counter = await db('feed_sequences').where('name', 'stock_movements').first();
      expect(Number(counter.last_seq)).to.equal(Number(rows[rows.length - 1]!.id));
    });
  });
});
