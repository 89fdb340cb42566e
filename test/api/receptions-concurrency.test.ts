/**
 * Receptions racing for what remains on a purchase-order line: whatever the interleaving, a line
 * never receives more than ordered, stock rises exactly once per accepted reception, and the loser
 * gets a 422 on its line. On MariaDB the pool has 20 connections, so the requests really overlap.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { makeArticle } from '../fixtures/articles.js';
import { withInsertTrigger } from '../fixtures/faults.js';
import { balance, eventsOf, movements } from '../fixtures/probes.js';
import { createOrder } from '../fixtures/purchase-orders.js';

const FIELD = 'selected_items.0.quantity_um3pl';

describe('Concurrent receptions (POST /api/receptions)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  /** A fresh article (so its stock is this test's alone) and a purchase order of `ordered` of it. */
  const freshArticle = async () => (await makeArticle(world, world.client.id, { prefix: 'RACE-' })).id;

  async function orderOf(ordered: number): Promise<{ articleId: number; orderId: number; itemId: number }> {
    const articleId = await freshArticle();
    const order = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: articleId, um3pl: 'BUC', quantity_um3pl: ordered }]);
    return { articleId, orderId: order.id, itemId: order.items[0]!.id };
  }

  const receive = (orderId: number, itemId: number, quantity: number) =>
    world
      .as('operator')
      .post('/api/receptions')
      .send({ purchase_order_id: orderId, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: itemId, quantity_um3pl: quantity }] });

  async function state(articleId: number, orderId: number, itemId: number) {
    const item = await h.db('purchase_order_items').where('id', itemId).first();
    const receptions = await h.db('receptions').where('purchase_order_id', orderId).select('id');
    const events = await eventsOf(h.db, world.client.id, 'reception.created');
    return {
      received: Number(item.received_quantity),
      stock: await balance(h.db, { clientId: world.client.id, warehouseId: world.warehouses[0]!, articleId }),
      movements: (await movements(h.db, { article_id: articleId })).map((m) => ({ delta: m.delta, documentId: m.document_id })),
      receptionIds: receptions.map((r) => Number(r.id)).sort((a, b) => a - b),
      receptionEvents: events.filter((e) => e.purchase_order_id === orderId).length,
    };
  }

  const describeAll = (results: Response[]): string => JSON.stringify(results.map((r) => [r.status, r.body]));

  function expectLineRefusal(res: Response): void {
    expect(res.body.errors, JSON.stringify(res.body)).to.have.all.keys(FIELD);
    expect(res.body.errors[FIELD]).to.have.length(1);
    expect(res.body.errors[FIELD][0]).to.match(/^Receiving 6 would exceed /);
  }

  it('When two receptions of the same remaining 6 are sent at once, Then exactly one is stored and stock rises once', async () => {
    const { articleId, orderId, itemId } = await orderOf(10);
    await receive(orderId, itemId, 4).expect(201);

    const results = await Promise.all([receive(orderId, itemId, 6), receive(orderId, itemId, 6)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, describeAll(results)).to.deep.equal([201, 422]);
    const won = results.find((r) => r.status === 201)!;
    expectLineRefusal(results.find((r) => r.status === 422)!);

    const after = await state(articleId, orderId, itemId);
    expect(after.received).to.equal(10_000);
    expect(after.stock).to.equal(10_000);
    expect(after.receptionIds).to.have.length(2).and.include(won.body.data.id);
    expect(after.movements.map((m) => m.delta).sort((a, b) => a - b)).to.deep.equal([4000, 6000]);
    expect(after.movements.map((m) => m.documentId).sort((a, b) => a - b)).to.deep.equal(after.receptionIds);
    expect(after.receptionEvents).to.equal(2);
    const order = await world.as('viewer').get(`/api/purchase-orders/${orderId}`).expect(200);
    expect(order.body.data.status).to.equal('received');
    expect(order.body.data.items[0]).to.include({ quantity_um3pl: 10, received_quantity_um3pl: 10 });
  });

  it('When 10 receptions of 1 race for a line with 5 remaining, Then exactly 5 succeed, received equals ordered and stock rises by 5', async () => {
    const { articleId, orderId, itemId } = await orderOf(8);
    await receive(orderId, itemId, 3).expect(201);
    const before = await state(articleId, orderId, itemId);
    expect(before).to.include({ received: 3000, stock: 3000 });

    const results = await Promise.all(Array.from({ length: 10 }, () => receive(orderId, itemId, 1)));
    for (const r of results) expect(r.status, describeAll(results)).to.be.oneOf([201, 422]);
    const won = results.filter((r) => r.status === 201);
    expect(won, describeAll(results)).to.have.length(5);
    for (const r of results.filter((x) => x.status === 422)) {
      expect(r.body.errors, JSON.stringify(r.body)).to.have.all.keys(FIELD);
      expect(r.body.errors[FIELD][0]).to.match(/^Receiving 1 would exceed /);
    }

    const after = await state(articleId, orderId, itemId);
    expect(after.received).to.equal(8000);
    expect(after.stock).to.equal(8000);
    expect(after.receptionIds).to.have.length(6);
    expect(after.receptionIds).to.include.members(won.map((r) => r.body.data.id as number));
    expect(after.movements).to.have.length(6);
    expect(after.movements.reduce((sum, m) => sum + m.delta, 0)).to.equal(8000);
    expect(after.receptionEvents).to.equal(6);
    const stock = await world.as('viewer').get(`/api/stock?article_id=${articleId}`).expect(200);
    expect(stock.body.data.map((r: { quantity: number }) => r.quantity)).to.deep.equal([8]);
  });

  it('When two receptions of different lines of one order race, Then both are stored and each line and stock rise by its own quantity', async () => {
    const [firstArticle, secondArticle] = [await freshArticle(), await freshArticle()];
    const order = await createOrder(world.as('operator'), world.partners.supplier, [
      { article_id: firstArticle, um3pl: 'BUC', quantity_um3pl: 5 },
      { article_id: secondArticle, um3pl: 'BUC', quantity_um3pl: 7 },
    ]);
    const [a, b] = order.items;
    const results = await Promise.all([receive(order.id, a!.id, 5), receive(order.id, b!.id, 7)]);
    expect(results.map((r) => r.status), describeAll(results)).to.deep.equal([201, 201]);
    const after = await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200);
    expect(after.body.data.items.map((i: { received_quantity_um3pl: number }) => i.received_quantity_um3pl)).to.deep.equal([5, 7]);
    expect(after.body.data.status).to.equal('received');
    expect((await state(firstArticle, order.id, a!.id)).stock).to.equal(5000);
    expect((await state(secondArticle, order.id, b!.id)).stock).to.equal(7000);
  });

  it('When the line fills up between the check and the transaction, Then the conditional update refuses it (422) and nothing of it remains', async () => {
    // SQLite serialises the requests above, so each sees the other's commit in its check; this
    // test makes the other reception land inside the transaction, after the check, on both engines.
    const { articleId, orderId, itemId } = await orderOf(10);
    await receive(orderId, itemId, 4).expect(201);
    const before = await state(articleId, orderId, itemId);
    const fill = 'UPDATE purchase_order_items SET received_quantity = quantity WHERE purchase_order_id = NEW.purchase_order_id';
    const res = await withInsertTrigger(h.db, { table: 'receptions', timing: 'AFTER', action: fill }, () => receive(orderId, itemId, 6).expect(422));
    expect(res.body.errors).to.deep.equal({ [FIELD]: ['Receiving 6 would exceed what remains on this line.'] });
    expect(await state(articleId, orderId, itemId)).to.deep.equal(before);
    expect(before).to.include({ received: 4000, stock: 4000 });
  });
});
