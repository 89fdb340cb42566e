/** The feed sequencer (src/platform/feeds/sequencer.ts): places after commit, in id order, never twice. */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { EVENTS_FEED, hasUnstamped, runsOf, stampAll, stampFeed, startFeedStamper, STOCK_MOVEMENTS_FEED } from '../../../src/platform/feeds/sequencer.js';
import { recordEvent } from '../../../src/platform/outbox.js';
import { createWorld } from '../../helpers/factories.js';
import { feedPlaces, placesHeld } from '../../fixtures/probes.js';
import { isolatedHarness, type Isolated } from '../../helpers/harness.js';

describe('Feed sequencer', () => {
  let h: Isolated;

  before(async () => {
    h = await isolatedHarness();
  });
  after(async () => h.close());

  it('When rows wait for places, Then a stamp gives the next places in id order, a batch at a time, and counts them in feed_sequences', async () => {
    const world = await createWorld(h.app, h.db);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await h.db.transaction((tx) => recordEvent(tx, { companyId: world.client.id, type: 'article.updated', data: { i } })));
    expect(await hasUnstamped(h.db, EVENTS_FEED)).to.equal(true);
    expect(await stampFeed(h.db, EVENTS_FEED, 3)).to.equal(3);
    expect(await stampFeed(h.db, EVENTS_FEED, 3)).to.equal(3);
    expect(await stampAll(h.db, EVENTS_FEED)).to.equal(1);
    expect(await hasUnstamped(h.db, EVENTS_FEED)).to.equal(false);
    expect(await feedPlaces(h.db, ids)).to.deep.equal(ids.map((event_id, i) => ({ event_id, feed_seq: i + 1 })));
    expect(Number((await h.db('feed_sequences').where('name', 'events').first()).last_seq)).to.equal(7);
    expect(await stampFeed(h.db, EVENTS_FEED)).to.equal(0);
  });

  it('When a batch\'s ids are split into runs, Then consecutive ids make one run and each gap starts one at its index in the batch', () => {
    expect(runsOf([5, 6, 7])).to.deep.equal([{ from: 5, to: 7, offset: 0 }]);
    expect(runsOf([1, 2, 4, 5, 6, 9])).to.deep.equal([
      { from: 1, to: 2, offset: 0 },
      { from: 4, to: 6, offset: 2 },
      { from: 9, to: 9, offset: 5 },
    ]);
    expect(runsOf([])).to.deep.equal([]);
  });

  it('When the rows waiting are not consecutive ids (gaps, a row among them placed already), Then each gets the next place in id order and the placed row keeps its own', async () => {
    const world = await createWorld(h.app, h.db);
    await stampAll(h.db, EVENTS_FEED);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await h.db.transaction((tx) => recordEvent(tx, { companyId: world.client.id, type: 'article.updated', data: { i } })));
    const rows: Array<{ id: number }> = await h.db('outbox_events').whereIn('event_id', ids).orderBy('id').select('id');
    await h.db('outbox_events').whereIn('id', [rows[2]!.id, rows[7]!.id]).delete();
    const last = Number((await h.db('feed_sequences').where('name', 'events').first()).last_seq);
    await h.db('outbox_events').where('id', rows[5]!.id).update({ feed_seq: last + 1000 });
    expect(await stampAll(h.db, EVENTS_FEED)).to.equal(7);
    const waiting = [0, 1, 3, 4, 6, 8, 9].map((i) => ids[i]!);
    expect(await feedPlaces(h.db, waiting)).to.deep.equal(waiting.map((event_id, i) => ({ event_id, feed_seq: last + 1 + i })));
    expect(await feedPlaces(h.db, [ids[5]!])).to.deep.equal([{ event_id: ids[5], feed_seq: last + 1000 }]);
  });

  it('When several stampers run at once over new rows, Then every row gets one place and the places follow on without gaps', async () => {
    const world = await createWorld(h.app, h.db);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await h.db.transaction((tx) => recordEvent(tx, { companyId: world.client.id, type: 'article.updated', data: { i } })));
    await Promise.all(Array.from({ length: 4 }, () => stampAll(h.db, EVENTS_FEED)));
    const places = await feedPlaces(h.db, ids);
    const first = places[0]!.feed_seq!;
    expect(places, 'in id order, one place each, following on').to.deep.equal(ids.map((event_id, i) => ({ event_id, feed_seq: first + i })));
    expect(await placesHeld(h.db, 1, first + ids.length - 1), 'no gap before them').to.equal(first + ids.length - 1);
  });
  it('When the stamper is stopped while a stamp is under way, Then stop resolves only once that stamp has finished (before the database may close)', async () => {
    const world = await createWorld(h.app, h.db);
    await h.db.transaction((tx) => recordEvent(tx, { companyId: world.client.id, type: 'article.updated', data: { stop: true } }));
    let entered!: () => void;
    const stampStarted = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The database as the stamper sees it: its stamp's transaction waits at the gate.
    const gated = new Proxy(h.db, {
      get(target, property, receiver) {
        if (property !== 'transaction') return Reflect.get(target, property, receiver) as unknown;
        return async (work: (tx: Knex.Transaction) => Promise<unknown>, config?: Knex.TransactionConfig) => {
          entered();
          await gate;
          return target.transaction(work, config);
        };
      },
    });
    const stamper = startFeedStamper(gated, pino({ level: 'silent' }), [EVENTS_FEED], 5);
    await stampStarted;
    let stopped = false;
    const stopping = stamper.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped, 'stop() resolved while the stamp waited').to.equal(false);
    release();
    await stopping;
    expect(await hasUnstamped(h.db, EVENTS_FEED), 'the stamp under way finished before stop() resolved').to.equal(false);
  });

  it('When a feed keeps a horizon and a movement commits after a later one (its creation time earlier), Then each stamp writes the latest creation time placed so far, never falling and never below a row\'s own', async () => {
    const world = await createWorld(h.app, h.db);
    const movement = (created_at: string) => ({
      company_id: world.client.id, warehouse_id: world.warehouses[0], article_id: world.articles.client.id, stock_type: 'STOC_OK',
      delta: 1000, quantity_after: 0, cause: 'adjustment', document_kind: 'adjustment', document_id: 1, created_at,
    });
    await h.db('stock_movements').insert(movement('2026-03-01 10:00:05.000000'));
    await stampAll(h.db, STOCK_MOVEMENTS_FEED);
    await h.db('stock_movements').insert([movement('2026-03-01 10:00:01.000000'), movement('2026-03-01 10:00:06.000000')]);
    await h.db('stock_movements').insert(movement('2026-03-01 10:00:02.000000'));
    expect(await stampFeed(h.db, STOCK_MOVEMENTS_FEED, 2)).to.equal(2);
    expect(await stampAll(h.db, STOCK_MOVEMENTS_FEED)).to.equal(1);
    const rows: Array<{ feed_seq: number; created_at: string; feed_horizon: string }> = await h.db('stock_movements').select('feed_seq', 'created_at', 'feed_horizon').orderBy('feed_seq');
    const time = (value: string) => String(value).slice(11, 19);
    expect(rows.map((r) => [Number(r.feed_seq), time(r.created_at), time(r.feed_horizon)])).to.deep.equal([
      [1, '10:00:05', '10:00:05'],
      [2, '10:00:01', '10:00:06'],
      [3, '10:00:06', '10:00:06'],
      [4, '10:00:02', '10:00:06'],
    ]);
  });
});
