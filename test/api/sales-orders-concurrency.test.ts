/**
 * Sales orders racing for stock and for their own status: whatever the interleaving, stock never
 * goes below zero, each accepted delivery takes its units exactly once, a refused one changes
 * nothing, and of two moves racing on one order exactly one wins. On MariaDB the pool has 20
 * connections, so the requests really overlap.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { forbiddenMoveMessage } from '../../src/components/sales-orders/sales-orders.rules.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { eventsOf, ledgerMismatches, movements, movementsOf } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, orderBody } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';
import { testEnv } from '../helpers/test-env.js';

const SHORT = 'Not enough stock to deliver the order; nothing was delivered.';

describe('Concurrent sales-order moves', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const move = (id: number, status: string) => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status });
  const summary = (results: Response[]) => JSON.stringify(results.filter((r) => r.status !== 200).slice(0, 5).map((r) => [r.status, r.body]));
  const shortOfOne = (a: Article) => `Not enough STOC_OK stock of article ${a.code} in warehouse ${world.warehouses[0]}: 0 on hand, 1 needed, short by 1.`;

  it('When orders with the same two articles in opposite line order are delivered at once, Then every one is delivered (stock rows are taken in one order, by article, so they do not deadlock)', async function () {
    this.timeout(120_000);
    const [a, b] = [await freshArticle(world, world.client.id, 'BUC', 'RACE-'), await freshArticle(world, world.client.id, 'BUC', 'RACE-')];
    const orders = 30;
    await receiveStock(world, a, orders);
    await receiveStock(world, b, 2 * orders);
    const ids: number[] = [];
    for (let i = 0; i < orders; i++) {
      const lines = i % 2 === 0 ? [buc(a, 1), buc(b, 2)] : [buc(b, 2), buc(a, 1)];
      ids.push((await moveThrough(world, (await createSalesOrder(world, lines)).id, ['picking', 'picked'])).id);
    }
    const results = await Promise.all(ids.map((id) => move(id, 'delivered')));
    expect(results.map((r) => r.status), summary(results)).to.deep.equal(new Array(orders).fill(200));
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    expect(await levels(world, b.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    expect((await movements(h.db, { document_kind: 'sales_order', document_id: ids })).length).to.equal(2 * orders);
  });

  it('When the lines of a new order are replaced while it moves to picking, Then the move always succeeds, the replacement lands before it or is a 422 naming picking, and the reservation matches the lines the order ends with', async function () {
    this.timeout(120_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
    const orders = 20;
    const ids: number[] = [];
    for (let i = 0; i < orders; i++) ids.push((await createSalesOrder(world, [buc(a, 1)])).id);
    const pairs = await Promise.all(ids.map(async (id, i) => {
      const put = () => world.as('operator').put(`/api/sales-orders/${id}`).send({ items: [buc(a, 3)] });
      const [p, m] = i % 2 === 0 ? await Promise.all([put(), move(id, 'picking')]) : (await Promise.all([move(id, 'picking'), put()])).reverse();
      return { id, put: p!, move: m! };
    }));
    let expected = 0;
    for (const { id, put, move: moved } of pairs) {
      expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
      expect([200, 422], JSON.stringify(put.body)).to.include(put.status);
      if (put.status === 422) expect(put.body.errors).to.deep.equal({ items: ['The items can change only while the order is new; it is picking.'] });
      const lines = await h.db('sales_order_items').where('sales_order_id', id).select('quantity');
      expect(lines.map((l) => Number(l.quantity))).to.deep.equal([put.status === 200 ? 3000 : 1000]);
      expected += put.status === 200 ? 3 : 1;
    }
    expect((await levels(world, a.id)).reserved).to.equal(expected);
  });

  describe('200 concurrent deliveries of 1-unit picked orders against 100 on hand', () => {
    let a: Article;
    const ids: number[] = [];
    let results: Response[] = [];
    const delivered = () => ids.filter((_, i) => results[i]!.status === 200).sort((x, y) => x - y);
    const refused = () => ids.filter((_, i) => results[i]!.status === 422).sort((x, y) => x - y);

    before(async function () {
      this.timeout(180_000);
      a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
      await receiveStock(world, a, 100);
      const setupStarted = Date.now();
      for (let i = 0; i < 200; i++) {
        const order = await createSalesOrder(world, [buc(a, 1)]);
        await moveThrough(world, order.id, ['picking', 'picked']);
        ids.push(order.id);
      }
      const setupMs = Date.now() - setupStarted;
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 100, reserved: 200, available: 0, backordered: 100 });
      const raceStarted = Date.now();
      results = await Promise.all(ids.map((id) => move(id, 'delivered')));
      const raceMs = Date.now() - raceStarted;
      console.log(`      [${testEnv.engine}] setup of 200 picked orders: ${setupMs} ms; 200 concurrent deliveries: ${raceMs} ms`);
    });

    it('When they race, Then exactly 100 answer 200 delivered and 100 answer 422, none anything else', () => {
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200), summary(results)).to.have.length(100);
      expect(statuses.filter((s) => s === 422), summary(results)).to.have.length(100);
      for (const res of results.filter((r) => r.status === 200)) expect(res.body.data.status).to.equal('delivered');
      for (const res of results.filter((r) => r.status === 422)) {
        expect(res.body.message).to.equal(SHORT);
        expect(res.body.errors).to.have.all.keys('status');
      }
    });

    it('When they are done, Then stock is 0 on hand with the 100 undelivered units reserved, and orders, movements, history, events and ledger agree', async () => {
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 100, available: 0, backordered: 100 });
      const rows = await h.db('sales_orders').whereIn('id', ids).select('id', 'status');
      expect(rows.filter((r) => r.status === 'delivered').map((r) => r.id).sort((x, y) => x - y)).to.deep.equal(delivered());
      expect(rows.filter((r) => r.status === 'picked').map((r) => r.id).sort((x, y) => x - y)).to.deep.equal(refused());
      const deliveries = await movements(h.db, { article_id: a.id, cause: 'delivery' });
      expect(deliveries.map((m) => m.delta)).to.deep.equal(new Array(100).fill(-1000));
      expect(deliveries.map((m) => m.document_id).sort((x, y) => x - y)).to.deep.equal(delivered());
      const history = await h.db('sales_order_status_history').whereIn('sales_order_id', ids).where('status', 'delivered').select('sales_order_id');
      expect(history.map((r) => r.sales_order_id).sort((x, y) => x - y)).to.deep.equal(delivered());
      const events = (await eventsOf(h.db, world.client.id, 'sales_order.status_changed')).filter((e) => e.status === 'delivered' && ids.includes(e.id as number));
      expect(events.map((e) => e.id as number).sort((x, y) => x - y)).to.deep.equal(delivered());
      expect(await ledgerMismatches(h.db)).to.deep.equal([]);
    });

    it('When a delivery is refused, Then its message names the article with 0 on hand, 1 needed, short by 1', () => {
      const messages = results.filter((r) => r.status === 422).map((r) => (r.body.errors.status as string[]).join(' | '));
      const wrong = messages.filter((m) => m !== shortOfOne(a));
      expect(wrong, `${wrong.length} of ${messages.length} wrong, e.g. ${wrong.slice(0, 3).join(' / ')}`).to.deep.equal([]);
    });

    it('When refused orders are cancelled afterwards, Then each releases its unit', async () => {
      for (const id of refused().slice(0, 10)) await move(id, 'cancelled').expect(200);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 90, available: 0, backordered: 90 });
    });
  });

  it('When delivery and cancellation of the same picked order race, Then exactly one wins and the stock agrees with the winner', async function () {
    this.timeout(120_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
    const orders = 20;
    await receiveStock(world, a, 2 * orders);
    const ids: number[] = [];
    for (let i = 0; i < orders; i++) ids.push((await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, ['picking', 'picked'])).id);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 2 * orders, reserved: 2 * orders, available: 0, backordered: 0 });

    // Half the pairs send the cancellation first, so each side gets its chance to win.
    const pairs = await Promise.all(ids.map(async (id, i) => {
      const [first, second] = i % 2 === 0 ? ['delivered', 'cancelled'] : ['cancelled', 'delivered'];
      const [r1, r2] = await Promise.all([move(id, first!), move(id, second!)]);
      return { id, results: { [first!]: r1!, [second!]: r2! } as Record<'delivered' | 'cancelled', Response> };
    }));

    let deliveredCount = 0;
    for (const { id, results } of pairs) {
      const { delivered, cancelled } = results;
      expect([delivered.status, cancelled.status].sort(), JSON.stringify([delivered.body, cancelled.body])).to.deep.equal([200, 422]);
      const winner = delivered.status === 200 ? 'delivered' : 'cancelled';
      const loser = winner === 'delivered' ? cancelled : delivered;
      const lost = winner === 'delivered' ? 'cancelled' : 'delivered';
      const message = forbiddenMoveMessage(winner, lost);
      expect(loser.body).to.deep.equal({ message, errors: { status: [message] } });
      const row = await h.db('sales_orders').where('id', id).first();
      expect(row.status).to.equal(winner);
      const history = await h.db('sales_order_status_history').where('sales_order_id', id).orderBy('id');
      expect(history.map((r) => r.status)).to.deep.equal(['new', 'picking', 'picked', winner]);
      expect((await movementsOf(h.db, 'sales_order', id)).map((m) => m.delta)).to.deep.equal(winner === 'delivered' ? [-2000] : []);
      const changes = (await eventsOf(h.db, world.client.id, 'sales_order.status_changed', id)).map((e) => e.status);
      expect(changes).to.deep.equal(['picking', 'picked', winner]);
      if (winner === 'delivered') deliveredCount++;
    }
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 2 * (orders - deliveredCount), reserved: 0, available: 2 * (orders - deliveredCount), backordered: 0 });
    console.log(`      [${testEnv.engine}] ${deliveredCount} of ${orders} races won by the delivery`);
  });

  it('When 20 orders are created at once on the same stock, Then every reservation counts', async function () {
    this.timeout(60_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
    await receiveStock(world, a, 10);
    const results = await Promise.all(Array.from({ length: 20 }, () => world.as('operator').post('/api/sales-orders').send(orderBody(world, [buc(a, 1)]))));
    expect(results.map((r) => r.status), summary(results)).to.deep.equal(new Array(20).fill(201));
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 20, available: 0, backordered: 10 });
  });

  it('When two orders with the same internal_code are created at once, Then one is stored and the other is a 422 on internal_code', async () => {
    const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
    const code = unique('SO-RACE-');
    const results = await Promise.all([1, 2].map((q) => world.as('operator').post('/api/sales-orders').send(orderBody(world, [buc(a, q)], { internal_code: code }))));
    expect(results.map((r) => r.status).sort(), JSON.stringify(results.map((r) => r.body))).to.deep.equal([201, 422]);
    const loser = results.find((r) => r.status === 422)!;
    expect(loser.body.errors).to.deep.equal({ internal_code: ['The internal_code has already been taken for this client.'] });
    const winner = results.find((r) => r.status === 201)!;
    expect(await h.db('sales_orders').where('internal_code', code).select('id')).to.deep.equal([{ id: winner.body.data.id }]);
    expect((await levels(world, a.id)).reserved).to.equal(winner.body.data.items[0].quantity_um3pl);
  });
});
