/**
 * Shipments racing each other and the order's moves: whatever the interleaving, stock never goes
 * below zero, a line never ships beyond its quantity, each accepted shipment takes its units once,
 * a refused one changes nothing, and a shipment racing a cancellation, a close or a hold either
 * lands before it or is refused after it. On MariaDB the pool has 20 connections, so the requests
 * really overlap.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { testEnv } from '../helpers/test-env.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { eventsOf, ledgerMismatches } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, ship, type SalesOrder } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

describe('POST /api/sales-orders/{id}/shipments', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const shipping = (order: SalesOrder, line: number, quantity: number) =>
    world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send({ items: [{ so_item_id: order.items[line]!.id, quantity_um3pl: quantity }] });
  const move = (id: number, status: string) => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status });
  const summary = (results: Response[]) => JSON.stringify(results.filter((r) => r.status >= 300).slice(0, 5).map((r) => [r.status, r.body]));
  const getOrder = async (id: number): Promise<SalesOrder> => (await world.as('viewer').get(`/api/sales-orders/${id}`).expect(200)).body.data;

  describe('50 at once on one order: line A (40 ordered, 25 on hand) in twos, line B (15 ordered, plenty on hand) in ones', () => {
    let a: Article;
    let b: Article;
    let order: SalesOrder;
    let results: Response[] = [];
    const ofLine = (line: number) => results.filter((_, i) => i % 2 === line);

    before(async function () {
      this.timeout(180_000);
      [a, b] = [await freshArticle(world, world.client.id, 'BUC', 'RACE-'), await freshArticle(world, world.client.id, 'BUC', 'RACE-')];
      await receiveStock(world, a, 25);
      await receiveStock(world, b, 100);
      order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 40), buc(b, 15)])).id, ['picking', 'picked']);
      const started = Date.now();
      results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? shipping(order, 0, 2) : shipping(order, 1, 1))));
      console.log(`      [${testEnv.engine}] 50 concurrent shipments of one order: ${Date.now() - started} ms`);
    });

    it('When they race, Then stock bounds line A (12 ship, 13 are short) and the line bounds B (15 ship, 10 exceed it); nothing else is answered', () => {
      expect(results.every((r) => r.status === 201 || r.status === 422), summary(results)).to.equal(true);
      expect(ofLine(0).filter((r) => r.status === 201), summary(ofLine(0))).to.have.length(12);
      expect(ofLine(1).filter((r) => r.status === 201), summary(ofLine(1))).to.have.length(15);
      const short = `Not enough STOC_OK stock of article ${a.code} in warehouse ${world.warehouses[0]}: 1 on hand, 2 needed, short by 1.`;
      for (const r of ofLine(0).filter((x) => x.status === 422)) expect(r.body).to.deep.equal({ message: 'Not enough stock for the shipment; nothing was shipped.', errors: { 'items.0.quantity_um3pl': [short] } });
      for (const r of ofLine(1).filter((x) => x.status === 422)) {
        expect(r.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': ['Shipping 1 would exceed the 0 left to ship on this line (15 ordered, 15 shipped).'] });
      }
    });

    it('When they are done, Then the lines, the stock, the reservation, the shipments, the events and the ledger all agree', async () => {
      const after = await getOrder(order.id);
      expect(after.status).to.equal('partially_delivered');
      expect(after.items.map((i) => i.delivered_quantity_um3pl)).to.deep.equal([24, 15]);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 1, reserved: 16, available: 0, backordered: 15 });
      expect(await levels(world, b.id)).to.deep.equal({ quantity: 85, reserved: 0, available: 85, backordered: 0 });
      const made = results.filter((r) => r.status === 201).map((r) => r.body.data.id as number).sort((x, y) => x - y);
      expect(after.shipments.map((s) => s.id)).to.deep.equal(made);
      const shipped = await h.db('shipment_items').whereIn('shipment_id', made).select('sales_order_item_id').sum({ total: 'quantity' }).groupBy('sales_order_item_id').orderBy('sales_order_item_id');
      expect(shipped.map((r) => Number(r.total))).to.deep.equal([24_000, 15_000]);
      const movements = await h.db('stock_movements').where({ cause: 'shipment' }).whereIn('document_id', made).select('article_id', 'delta');
      expect(movements.filter((m) => m.article_id === a.id).map((m) => Number(m.delta))).to.deep.equal(new Array(12).fill(-2000));
      expect(movements.filter((m) => m.article_id === b.id).map((m) => Number(m.delta))).to.deep.equal(new Array(15).fill(-1000));
      expect((await eventsOf(h.db, world.client.id, 'shipment.created')).filter((e) => e.sales_order_id === order.id).map((e) => e.id as number).sort((x, y) => x - y)).to.deep.equal(made);
      // The first shipment moved the order; every other one left it partially delivered.
      expect((await eventsOf(h.db, world.client.id, 'sales_order.status_changed', order.id)).map((e) => e.status)).to.deep.equal(['picking', 'picked', 'partially_delivered']);
      expect(await eventsOf(h.db, world.client.id, 'sales_order.updated', order.id)).to.have.length(26);
      expect(await ledgerMismatches(h.db)).to.deep.equal([]);
    });
  });

  /**
   * 20 orders of 3 (60 on hand), moved along `path` and `shippedFirst` of each shipped, each then
   * raced by a shipment of 1 and `other`; answers the article and each pair of answers.
   */
  async function race(path: string[], shippedFirst: number, other: (order: SalesOrder) => PromiseLike<Response>) {
    const article = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
    await receiveStock(world, article, 60);
    const orders: SalesOrder[] = [];
    for (let i = 0; i < 20; i++) {
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(article, 3)])).id, path);
      if (shippedFirst > 0) await ship(world, order, [[0, shippedFirst]]);
      orders.push(order);
    }
    // Half the pairs send the other request first, so each side gets its chance to win.
    const pairs = await Promise.all(orders.map(async (order, i) => {
      const [x, y] = i % 2 === 0 ? await Promise.all([shipping(order, 0, 1), other(order)]) : (await Promise.all([other(order), shipping(order, 0, 1)])).reverse();
      return { order, shipment: x!, other: y! };
    }));
    const wins = pairs.filter((p) => p.shipment.status === 201).length;
    console.log(`      [${testEnv.engine}] ${wins} of 20 races won by the shipment`);
    return { article, pairs, wins };
  }

  it('When a shipment races a cancellation of a picked order, Then exactly one wins: a shipped order cannot be cancelled, a cancelled one ships nothing and reserves nothing', async function () {
    this.timeout(120_000);
    const { article, pairs, wins } = await race(['picking', 'picked'], 0, (o) => move(o.id, 'cancelled'));
    for (const { order, shipment, other } of pairs) {
      const after = await getOrder(order.id);
      if (shipment.status === 201) {
        expect(other.status, JSON.stringify(other.body)).to.equal(422);
        expect(other.body.errors).to.deep.equal({ status: ['The order cannot move from partially_delivered to cancelled; allowed: delivered, closed. Part of it has shipped: close it to give up the rest.'] });
        expect(after.status).to.equal('partially_delivered');
      } else {
        expect([shipment.status, other.status], JSON.stringify([shipment.body, other.body])).to.deep.equal([422, 200]);
        expect(shipment.body.errors).to.deep.equal({ status: ['The order is cancelled; only a picking, picked or partially_delivered order ships.'] });
        expect(after).to.deep.include({ status: 'cancelled', shipments: [] });
      }
    }
    expect(await levels(world, article.id)).to.deep.equal({ quantity: 60 - wins, reserved: 2 * wins, available: 60 - 3 * wins, backordered: 0 });
    expect(await ledgerMismatches(h.db)).to.deep.equal([]);
  });

  it('When a shipment races closing a partially delivered order, Then it lands before the close or is refused after it; the order ends closed, reserving nothing', async function () {
    this.timeout(120_000);
    const { article, pairs, wins } = await race(['picking', 'picked'], 1, (o) => move(o.id, 'closed'));
    for (const { order, shipment, other } of pairs) {
      expect(other.status, JSON.stringify(other.body)).to.equal(200);
      const after = await getOrder(order.id);
      expect(after.status).to.equal('closed');
      if (shipment.status !== 201) {
        expect(shipment.status).to.equal(422);
        expect(shipment.body.errors).to.deep.equal({ status: ['The order is closed; only a picking, picked or partially_delivered order ships.'] });
      }
      expect(after.items[0]!.delivered_quantity_um3pl).to.equal(shipment.status === 201 ? 2 : 1);
    }
    expect(await levels(world, article.id)).to.deep.equal({ quantity: 40 - wins, reserved: 0, available: 40 - wins, backordered: 0 });
    expect(await ledgerMismatches(h.db)).to.deep.equal([]);
  });

  it('When a shipment races a hold, Then it lands before the hold or is refused naming it', async function () {
    this.timeout(120_000);
    const { pairs } = await race(['picking', 'picked'], 0, (o) => world.as('operator').post(`/api/sales-orders/${o.id}/hold`).send({ reason: 'Recount' }));
    for (const { order, shipment, other } of pairs) {
      expect(other.status, JSON.stringify(other.body)).to.equal(200);
      if (shipment.status !== 201) {
        expect(shipment.status).to.equal(422);
        expect(shipment.body.errors).to.have.all.keys('on_hold');
      }
      expect((await getOrder(order.id)).items[0]!.delivered_quantity_um3pl).to.equal(shipment.status === 201 ? 1 : 0);
    }
  });
});
