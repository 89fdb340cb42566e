/**
 * Adjustments, counts and transfers racing deliveries of sales orders for the same stock: whatever
 * the interleaving, no balance goes below zero, every change is applied whole or refused whole,
 * each movement's balance after it follows from the one before (so a count sets exactly what was
 * counted, never on a stale reading), and a transfer never takes what open orders reserve. On
 * MariaDB the pool has 20 connections, so the requests really overlap.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { ledgerChainBreaks } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { adjustmentBody, countLine, deltaLine } from '../fixtures/stock-adjustments.js';
import { transferLine } from '../fixtures/stock-transfers.js';
import { levels, receiveStock } from '../fixtures/stock.js';

/** Shuffles in place (so requests of each kind start interleaved). */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

describe('POST /api/stock/adjustments and POST /api/stock/transfers racing POST /api/sales-orders/{id}/status delivered', function () {
  this.timeout(240_000);
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const summary = (results: Response[]) => JSON.stringify(results.filter((r) => r.status >= 500).slice(0, 3).map((r) => [r.status, r.body]));

  async function pickedOrders(article: Article, count: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push((await moveThrough(world, (await createSalesOrder(world, [buc(article, 1)])).id, ['picking', 'picked'])).id);
    return ids;
  }

  const deliver = (id: number) => () => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status: 'delivered' });
  const post = (path: string, body: unknown) => () => world.as('operator').post(path).send(body as object);

  async function race(requests: Array<{ kind: string; send: () => PromiseLike<Response> }>): Promise<Map<string, Response[]>> {
    const results = await Promise.all(shuffle(requests).map(async (r) => ({ kind: r.kind, res: await r.send() })));
    const byKind = new Map<string, Response[]>();
    for (const { kind, res } of results) byKind.set(kind, [...(byKind.get(kind) ?? []), res]);
    const all = results.map((r) => r.res);
    expect(all.filter((r) => r.status >= 500), summary(all)).to.deep.equal([]);
    return byKind;
  }

  const ok = (results: Response[] = [], status: number) => results.filter((r) => r.status === status).length;

  it('When 40 deliveries of 1 race 30 adjustments of -2 against 100 on hand, Then every answer is a success or a 422, stock ends at 100 less what succeeded, never below zero', async () => {
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-ADJ-');
    await receiveStock(world, a, 100);
    const orders = await pickedOrders(a, 40);
    const results = await race([
      ...orders.map((id) => ({ kind: 'delivery', send: deliver(id) })),
      ...Array.from({ length: 30 }, () => ({ kind: 'adjustment', send: post('/api/stock/adjustments', adjustmentBody(world, [deltaLine(a, -2)], { reason: 'loss' })) })),
    ]);
    const delivered = ok(results.get('delivery'), 200);
    const adjusted = ok(results.get('adjustment'), 201);
    expect(delivered + ok(results.get('delivery'), 422)).to.equal(40);
    expect(adjusted + ok(results.get('adjustment'), 422)).to.equal(30);
    expect(delivered + 2 * adjusted).to.be.at.most(100);
    const now = await levels(world, a.id);
    expect(now.quantity).to.equal(100 - delivered - 2 * adjusted);
    expect(now.reserved).to.equal(40 - delivered);
    expect(await ledgerChainBreaks(h.db, a.id)).to.deep.equal([]);
  });

  it('When counts race 30 deliveries, Then each count sets exactly what it counted at its turn (the movement before it plus its delta), and nothing goes below zero', async () => {
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-CNT-');
    await receiveStock(world, a, 30);
    const orders = await pickedOrders(a, 30);
    const counts = [25, 12, 28, 5, 20, 17];
    const results = await race([
      ...orders.map((id) => ({ kind: 'delivery', send: deliver(id) })),
      ...counts.map((n) => ({ kind: 'count', send: post('/api/stock/adjustments', adjustmentBody(world, [countLine(a, n)], { reason: 'count' })) })),
    ]);
    expect(ok(results.get('count'), 201)).to.equal(counts.length);
    for (const res of results.get('count')!) {
      const line = res.body.data.items[0];
      expect(line.quantity_after).to.equal(line.counted_um3pl);
      expect(line.quantity_before + line.delta_um3pl).to.equal(line.counted_um3pl);
    }
    const countMovements = await h.db('stock_movements').where({ article_id: a.id, cause: 'adjustment' }).orderBy('id').select('quantity_after');
    expect(countMovements.every((m) => counts.includes(Number(m.quantity_after) / 1000))).to.equal(true);
    expect(await ledgerChainBreaks(h.db, a.id)).to.deep.equal([]);
    const delivered = ok(results.get('delivery'), 200);
    expect((await levels(world, a.id)).reserved).to.equal(30 - delivered);
  });

  it('When 40 deliveries of 1 race 20 transfers of 1 against 50 on hand with 40 reserved, Then every delivery succeeds and exactly the 10 available move', async () => {
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-TRF-');
    const [w1, w2] = world.warehouses as [number, number];
    await receiveStock(world, a, 50);
    const orders = await pickedOrders(a, 40);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 50, reserved: 40, available: 10, backordered: 0 });
    const results = await race([
      ...orders.map((id) => ({ kind: 'delivery', send: deliver(id) })),
      ...Array.from({ length: 20 }, () => ({ kind: 'transfer', send: post('/api/stock/transfers', { items: [transferLine(a, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK'])] }) })),
    ]);
    expect(ok(results.get('delivery'), 200), summary(results.get('delivery')!)).to.equal(40);
    expect(ok(results.get('transfer'), 201)).to.equal(10);
    expect(ok(results.get('transfer'), 422)).to.equal(10);
    expect(await levels(world, a.id, w1)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    expect((await levels(world, a.id, w2)).quantity).to.equal(10);
    expect(await ledgerChainBreaks(h.db, a.id)).to.deep.equal([]);
  });

  it('When transfers in opposite directions between two warehouses race each other and deliveries, Then none deadlocks into an error and stock adds up', async () => {
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-X-');
    const [w1, w2] = world.warehouses as [number, number];
    await receiveStock(world, a, 40, w1);
    await receiveStock(world, a, 40, w2);
    const orders = await pickedOrders(a, 20);
    const results = await race([
      ...orders.map((id) => ({ kind: 'delivery', send: deliver(id) })),
      ...Array.from({ length: 15 }, (_, i) => ({
        kind: 'transfer',
        send: post('/api/stock/transfers', {
          items: i % 2 === 0 ? [transferLine(a, 2, [w1, 'STOC_OK'], [w2, 'STOC_OK'])] : [transferLine(a, 2, [w2, 'STOC_OK'], [w1, 'STOC_OK']), transferLine(a, 1, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])],
        }),
      })),
    ]);
    expect(ok(results.get('delivery'), 200)).to.equal(20);
    const total = (await levels(world, a.id, w1)).quantity + (await levels(world, a.id, w2)).quantity + (await levels(world, a.id, w1, 'STOC_DEFECT')).quantity;
    expect(total).to.equal(80 - 20);
    expect(await ledgerChainBreaks(h.db, a.id)).to.deep.equal([]);
  });
});
