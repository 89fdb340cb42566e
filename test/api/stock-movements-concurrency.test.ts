/**
 * The movement feed's promise under concurrency, as the events feed keeps it: writers whose
 * transactions stay open a while after their movement is written (so ids are taken long before
 * they commit, and commit out of id order on MariaDB) against a reader that polls
 * GET /api/stock/movements and follows next_cursor, while stampers run. Every committed movement
 * is read exactly once, in feed order; the horizon of the places never falls.
 */
import { expect } from 'chai';
import { applyStockChange } from '../../src/components/stock/stock.service.js';
import { STOCK_MOVEMENTS_FEED, stampAll } from '../../src/platform/feeds/sequencer.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';

const WRITERS = 6;
const MOVEMENTS_PER_WRITER = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /api/stock/movements under concurrent writers', function () {
  this.timeout(120_000);
  let h: Harness;
  let world: World;
  let articles: Article[];

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    articles = [];
    for (let w = 0; w < WRITERS; w++) articles.push(await freshArticle(world, world.client.id, 'BUC', 'FEED-'));
  });

  it(`When ${WRITERS} writers commit ${WRITERS * MOVEMENTS_PER_WRITER} movements with delays inside their transactions while a reader polls and stampers run, Then the reader sees every committed movement exactly once, in feed order`, async () => {
    const committed: number[] = [];
    let writing = true;
    const writer = async (w: number) => {
      const article = articles[w]!;
      for (let i = 0; i < MOVEMENTS_PER_WRITER; i++) {
        await h.db.transaction(async (tx) => {
          await applyStockChange(tx, {
            clientId: world.client.id,
            warehouseId: world.warehouses[0]!,
            articleId: article.id,
            stockType: 'STOC_OK',
            delta: 1000,
            cause: 'adjustment',
            document: { kind: 'adjustment', id: 0 },
            userId: null,
            articleCode: article.code,
            field: 'items.0.delta_um3pl',
          });
          await sleep(Math.random() * 25);
        });
        const last = await h.db('stock_movements').where('article_id', article.id).max({ id: 'id' }).first();
        committed.push(Number(last!.id));
        await sleep(Math.random() * 5);
      }
    };
    const stamper = async () => {
      while (writing) {
        await stampAll(h.db, STOCK_MOVEMENTS_FEED);
        await sleep(3);
      }
    };
    const seen: number[] = [];
    let cursor: number | undefined;
    const poll = async () => {
      const res = await world.as('viewer').get(`/api/stock/movements?per_page=7${cursor ? `&after=${cursor}` : ''}`).expect(200);
      const mine = (res.body.data as Array<{ id: number; article_id: number }>).filter((m) => articles.some((a) => a.id === m.article_id));
      seen.push(...mine.map((m) => m.id));
      if (res.body.data.length > 0) cursor = res.body.data[res.body.data.length - 1].id;
      if (res.body.meta.next_cursor !== null) expect(res.body.meta.next_cursor).to.equal(cursor);
      return res.body.data.length as number;
    };
    const reader = async () => {
      while (writing) {
        await poll();
        await sleep(2);
      }
    };

    const writers = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    const running = Promise.all([stamper(), stamper(), reader()]);
    await writers;
    writing = false;
    await running;
    while ((await poll()) > 0);

    expect(committed).to.have.length(WRITERS * MOVEMENTS_PER_WRITER);
    expect(new Set(seen).size, 'no movement read twice').to.equal(seen.length);
    expect([...seen].sort((a, b) => a - b)).to.deep.equal([...committed].sort((a, b) => a - b));
    const order = (await h.db('stock_movements').whereIn('id', committed).orderBy('feed_seq').select('id')).map((r: { id: number | string }) => Number(r.id));
    expect(seen, 'read in feed order').to.deep.equal(order);
    const horizons = (await h.db('stock_movements').whereNotNull('feed_seq').orderBy('feed_seq').select('feed_horizon')).map((r: { feed_horizon: string }) => String(r.feed_horizon));
    expect(horizons.every((time, i) => i === 0 || time >= horizons[i - 1]!), 'horizons never fall').to.equal(true);
  });
});
