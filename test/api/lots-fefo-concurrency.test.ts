/**
 * FEFO under concurrency: shipments, reservations and receptions of one article that tracks lots,
 * all at once. Whatever the interleaving, no lot goes below zero or ships more than it held, each
 * accepted shipment's lots add up to what it shipped, and the rows' `reserved` is the allocation of
 * what the open orders still reserve. On MariaDB the pool has 20 connections, so requests overlap.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { testEnv } from '../helpers/test-env.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { buc, createSalesOrder, moveThrough, type SalesOrder } from '../fixtures/sales-orders.js';
import type { StockLevel } from '../fixtures/stock.js';

describe('POST /api/sales-orders/{id}/shipments (lots, concurrent)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const stockOf = async (articleId: number): Promise<StockLevel[]> =>
    (await world.as('viewer').get(`/api/stock?article_id=${articleId}&per_page=200`).expect(200)).body.data as StockLevel[];
  const summary = (results: Response[]) => JSON.stringify(results.filter((r) => r.status >= 300 && r.status !== 422).slice(0, 5).map((r) => [r.status, r.body]));

  it('When 30 orders of 1 ship at once against lots of 10 and 10, Then exactly 20 ship, earliest lot first, and no lot oversells', async function () {
    this.timeout(180_000);
    const a = await trackedArticle(world);
    const [soon, later] = [dayFromToday(20), dayFromToday(60)];
    await receiveLots(world, a, [{ quantity: 10, lot: 'C1', expiry_date: soon }, { quantity: 10, lot: 'C2', expiry_date: later }]);
    const orders: SalesOrder[] = [];
    for (let i = 0; i < 30; i++) orders.push(await moveThrough(world, (await createSalesOrder(world, [buc(a, 1)])).id, ['picking']));
    const started = Date.now();
    const results = await Promise.all(orders.map((o) => world.as('operator').post(`/api/sales-orders/${o.id}/shipments`).send({})));
    console.log(`      [${testEnv.engine}] 30 concurrent shipments over two lots: ${Date.now() - started} ms`);
    expect(summary(results)).to.equal('[]');
    const shipped = results.filter((r) => r.status === 201);
    expect(shipped).to.have.length(20);
    const taken = shipped.flatMap((r) => r.body.data.items[0].lots as Array<{ lot: string; quantity_um3pl: number }>);
    expect(taken.every((l) => l.quantity_um3pl === 1)).to.equal(true);
    expect(taken.filter((l) => l.lot === 'C1')).to.have.length(10);
    expect(taken.filter((l) => l.lot === 'C2')).to.have.length(10);
    const rows = await stockOf(a.id);
    for (const row of rows) expect(row.quantity, `${row.lot}`).to.equal(0);
    expect(rows.reduce((sum, r) => sum + r.reserved, 0)).to.equal(10);
  });

  it('When orders are created and cancelled while receptions of new lots arrive, Then the rows reserve exactly what the open orders hold, earliest first', async function () {
    this.timeout(180_000);
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 5, lot: 'R0', expiry_date: dayFromToday(90) }]);
    const creates = Array.from({ length: 12 }, () => world.as('operator').post('/api/sales-orders').send({ partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], internal_code: `SO-R-${Math.random().toString(36).slice(2)}`, items: [buc(a, 2)] }));
    const receptions = Array.from({ length: 4 }, (_, i) => receiveLots(world, a, [{ quantity: 3, lot: `R${i + 1}`, expiry_date: dayFromToday(10 + i) }]));
    const [created] = await Promise.all([Promise.all(creates), Promise.all(receptions)]);
    expect(summary(created)).to.equal('[]');
    const cancels = await Promise.all(created.slice(0, 4).map((r) => world.as('operator').post(`/api/sales-orders/${r.body.data.id}/status`).send({ status: 'cancelled' })));
    expect(cancels.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
    // 8 open orders of 2 reserve 16: R1..R4 (3 each, earliest) take 12, R0 (5, latest) takes 4.
    const rows = await stockOf(a.id);
    const byLot = Object.fromEntries(rows.map((r) => [r.lot ?? '-', [r.quantity, r.reserved]]));
    expect(byLot).to.deep.include({ R1: [3, 3], R2: [3, 3], R3: [3, 3], R4: [3, 3], R0: [5, 4] });
    expect(rows.reduce((sum, r) => sum + r.reserved, 0)).to.equal(16);
    const demand = await h.db('stock_reservations').where('article_id', a.id).sum({ total: 'quantity' }).first();
    expect(Number(demand!.total)).to.equal(16_000);
  });
});
