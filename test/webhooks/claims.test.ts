/**
 * A worker's claim reads the due deliveries through their due-time index, oldest first, and stops
 * at its limit. Joined to webhooks (for `active`), MariaDB read and locked every due delivery,
 * sorted them and kept the first: 73,000 rows locked for a claim of 32 in a backlog of 37,000,
 * claims slowed as the backlog grew (70 deliveries a second drained after a burst of 500) and
 * deadlocked with the attempts' records (found by a consistency tester).
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { migrateLatest } from '../../db/migrations/index.js';
import { claimDue } from '../../src/components/webhooks/webhooks.queue.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { testEnv } from '../helpers/test-env.js';

const DUE = 600;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

describe('Claims of due webhook deliveries', () => {
  let scratch: TestDatabase;
  let active: number;
  let paused: number;
  let company: number;
  let otherActive: number;

  before(async () => {
    scratch = await createScratchDatabase();
    const db = scratch.db;
    await migrateLatest(db);
    company = await build.insertCompany(db, { name: 'P', type: 'provider' });
    const hook = (isActive: boolean) => ({ company_id: company, url: 'https://example.com/hook', events: '["*"]', secret: 'whsec_x', active: isActive, created_at: at(T0), updated_at: at(T0) });
    await db('webhooks').insert([hook(false), hook(true)]);
    [paused, active] = ((await db('webhooks').select('id').orderBy('id')) as Array<{ id: number }>).map((r) => Number(r.id)) as [number, number];
    // The paused subscription's deliveries are the oldest: a claim passes over them.
    const rows = (webhookId: number, from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        webhook_id: webhookId,
        event_id: `evt_${webhookId}_${from + i}`,
        event_type: 'article.created',
        payload: '{}',
        status: 'pending',
        attempts: 0,
        next_attempt_at: at(T0 + (from + i) * 1000),
        created_at: at(T0),
        updated_at: at(T0),
      }));
    await db.batchInsert('webhook_deliveries', rows(paused, 0, 5), 200);
    await db.batchInsert('webhook_deliveries', rows(active, 5, DUE), 200);
    // Another company's subscription, whose deliveries come due after all of those.
    const other = await build.insertCompany(db, { name: 'Q', type: 'provider' });
    await db('webhooks').insert({ ...hook(true), company_id: other });
    otherActive = Number((await db('webhooks').where('company_id', other).first('id'))!.id);
    await db.batchInsert('webhook_deliveries', rows(otherActive, 5 + DUE, 20), 200);
  });

  after(async () => {
    await scratch?.close();
  });

  it('When a worker claims 8 of 600 due deliveries, Then it takes the oldest of active subscriptions, reading them in due order through the index and locking few rows (MySQL/MariaDB)', async () => {
    const selects: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^select .* from [`"]?webhook_deliveries/i.test(query.sql)) selects.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    scratch.db.on('query', listen);
    let locked = 0;
    try {
      await scratch.db.transaction(async (tx: Knex.Transaction) => {
        const now = at(T0 + 10_000_000);
        const taken = await claimDue(tx, { now, until: at(T0 + 10_060_000), token: 'claim-1', limit: 8, perSubscription: { max: 8, sending: new Map() } });
        scratch.db.off('query', listen);
        expect(taken).to.equal(8);
        if (testEnv.engine === 'mysql') {
          const [rows] = (await tx.raw('SELECT trx_rows_locked AS n FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID()')) as [Array<{ n: number }>];
          locked = Number(rows[0]!.n);
        }
        const claimed = (await tx('webhook_deliveries').where('claim_token', 'claim-1').orderBy('id').pluck('event_id')) as string[];
        expect(claimed).to.deep.equal(Array.from({ length: 8 }, (_, i) => `evt_${active}_${5 + i}`));
      });
    } finally {
      scratch.db.off('query', listen);
    }
    expect(selects).to.have.length(1);
    if (testEnv.engine === 'mysql') {
      // The 32 proposed rows, the 8 claimed, the paused ones passed over and the index entries.
      expect(locked, 'rows locked by the claim').to.be.below(120);
      const [plan] = (await scratch.db.raw(`EXPLAIN ${selects[0]!.sql}`, selects[0]!.bindings as never[])) as [Array<{ key: string | null; Extra: string | null }>];
      expect(plan).to.have.length(1);
      expect(plan[0]!.key).to.equal('webhook_deliveries_next_attempt_at_status_index');
      expect(plan[0]!.Extra ?? '').not.to.match(/filesort|temporary/i);
    } else {
      const plan = (await scratch.db.raw(`EXPLAIN QUERY PLAN ${selects[0]!.sql}`, selects[0]!.bindings as never[])) as Array<{ detail: string }>;
      const detail = plan.map((step) => step.detail).join('; ');
      expect(detail).to.match(/USING INDEX webhook_deliveries_next_attempt_at_status_index/);
      expect(detail).not.to.match(/TEMP B-TREE/);
    }
  });
  it('When a company is at its bound of sends, Then its deliveries are passed over and another company\'s are claimed, still by one read of the deliveries alone (MySQL/MariaDB: one plan row)', async () => {
    const selects: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^select .* from [`"]?webhook_deliveries/i.test(query.sql)) selects.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    const companyOf = new Map<number, number>();
    const tx = await scratch.db.transaction();
    scratch.db.on('query', listen);
    try {
      const taken = await claimDue(tx, {
        now: at(T0 + 10_000_000),
        until: at(T0 + 10_060_000),
        token: 'claim-bound',
        limit: 8,
        perSubscription: { max: 4, sending: new Map() },
        perCompany: { max: 6, sending: new Map([[company, 6]]), companyOf },
      });
      scratch.db.off('query', listen);
      expect(taken).to.equal(4);
      const claimed = (await tx('webhook_deliveries').where('claim_token', 'claim-bound').pluck('webhook_id')) as number[];
      expect(claimed.map(Number)).to.deep.equal([otherActive, otherActive, otherActive, otherActive]);
    } finally {
      scratch.db.off('query', listen);
      await tx.rollback();
    }
    expect(selects).to.have.length(1);
    expect(companyOf.get(otherActive), 'the company of a subscription met is kept').to.be.a('number');
    if (testEnv.engine === 'mysql') {
      const [plan] = (await scratch.db.raw(`EXPLAIN ${selects[0]!.sql}`, selects[0]!.bindings as never[])) as [Array<{ key: string | null }>];
      expect(plan).to.have.length(1);
      expect(plan[0]!.key).to.equal('webhook_deliveries_next_attempt_at_status_index');
    }
  });
});
