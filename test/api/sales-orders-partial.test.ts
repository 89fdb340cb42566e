/**
 * Partial fulfilment through POST /api/sales-orders/{id}/status: a partially delivered order
 * reserves only what it has left, is delivered (the rest ships as one shipment) or closed short
 * (the rest's reservation is freed), and is never cancelled. Its lines stay open lines of their
 * articles for the unit rules.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { deliveryMovements, eventsAfter, eventsOf, lastEventId as lastEvent, outboundState } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, ship, type SalesOrder } from '../fixtures/sales-orders.js';
import { levels, receiveStock, stockRow } from '../fixtures/stock.js';

describe('POST /api/sales-orders/{id}/status', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const move = (id: number, status: string) => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status });
  const lastEventId = () => lastEvent(h.db);
  const eventsSince = (afterId: number) => eventsAfter(h.db, world.client.id, afterId);

  /** A picked order of 5 of `a` and 2 of `b` (10 of each on hand), 2 of `a` shipped: partially delivered. */
  async function partlyShipped(): Promise<{ order: SalesOrder; a: number; b: number }> {
    const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, a, 10);
    await receiveStock(world, b, 10);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 5), buc(b, 2)])).id, ['picking', 'picked']);
    await ship(world, order, [[0, 2]]);
    return { order, a: a.id, b: b.id };
  }

  it('When part of an order has shipped, Then it reserves only what its lines have left', async () => {
    const { a, b } = await partlyShipped();
    expect(await levels(world, a)).to.deep.equal({ quantity: 8, reserved: 3, available: 5, backordered: 0 });
    expect(await levels(world, b)).to.deep.equal({ quantity: 10, reserved: 2, available: 8, backordered: 0 });
  });

  it('When a partially delivered order is closed, Then the rest of its reservation is freed (a reservation change per line), nothing more ships, and it neither ships nor moves again', async () => {
    const { order, a, b } = await partlyShipped();
    const since = await lastEventId();
    const res = await move(order.id, 'closed').expect(200);
    expect(res.body.data).to.deep.include({ status: 'closed' });
    expect(res.body.data.items.map((i: { delivered_quantity_um3pl: number }) => i.delivered_quantity_um3pl)).to.deep.equal([2, 0]);
    expect(res.body.data.status_history.map((e: { status: string }) => e.status)).to.deep.equal(['new', 'picking', 'picked', 'partially_delivered', 'closed']);
    expect(await levels(world, a)).to.deep.equal({ quantity: 8, reserved: 0, available: 8, backordered: 0 });
    expect(await levels(world, b)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    const document = { type: 'sales_order', id: order.id };
    expect(await eventsSince(since)).to.deep.equal([
      ['stock.changed', { ...(await stockRow(world, a)), delta: 0, cause: 'reservation', document }],
      ['stock.changed', { ...(await stockRow(world, b)), delta: 0, cause: 'reservation', document }],
      ['sales_order.status_changed', res.body.data],
    ]);
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([]);

    const before = await outboundState(h.db, world.client.id);
    for (const status of ['delivered', 'cancelled', 'picked']) {
      expect((await move(order.id, status).expect(422)).body.errors).to.deep.equal({ status: [`The order is closed; it cannot move to ${status} or to any other status.`] });
    }
    await world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(422);
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect((await move(order.id, 'closed').expect(200)).body.data).to.deep.equal(res.body.data);
  });

  it('When a partially delivered order is delivered, Then the rest ships as one shipment without tracking, with the movements of a delivery', async () => {
    const { order, a, b } = await partlyShipped();
    const since = await lastEventId();
    const res = await move(order.id, 'delivered').expect(200);
    const delivered = res.body.data;
    expect(delivered.items.map((i: { delivered_quantity_um3pl: number }) => i.delivered_quantity_um3pl)).to.deep.equal([5, 2]);
    expect(delivered.shipments).to.have.length(2);
    const rest = (await world.as('viewer').get(`/api/shipments/${delivered.shipments[1].id}`).expect(200)).body.data;
    expect(rest.items.map((i: { so_item_id: number; quantity_um3pl: number }) => [i.so_item_id, i.quantity_um3pl])).to.deep.equal([[order.items[0]!.id, 3], [order.items[1]!.id, 2]]);
    expect(rest).to.deep.include({ carrier: null, tracking_number: null, tracking_url: null });
    expect(await levels(world, a)).to.deep.equal({ quantity: 5, reserved: 0, available: 5, backordered: 0 });
    expect(await levels(world, b)).to.deep.equal({ quantity: 8, reserved: 0, available: 8, backordered: 0 });
    const user = world.users.operator.id;
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([[a, -3000, 'STOC_OK', 'delivery', world.warehouses[0], user], [b, -2000, 'STOC_OK', 'delivery', world.warehouses[0], user]]);
    expect((await eventsSince(since)).map(([type]) => type)).to.deep.equal(['stock.changed', 'stock.changed', 'shipment.created', 'sales_order.status_changed']);
  });

  it('When a partially delivered order is cancelled, Then 422 on status saying to close it, and nothing changes', async () => {
    const { order } = await partlyShipped();
    const before = await outboundState(h.db, world.client.id);
    const res = await move(order.id, 'cancelled').expect(422);
    const message = 'The order cannot move from partially_delivered to cancelled; allowed: delivered, closed. Part of it has shipped: close it to give up the rest.';
    expect(res.body).to.deep.equal({ message, errors: { status: [message] } });
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect((await eventsOf(h.db, world.client.id, 'sales_order.status_changed', order.id)).map((e) => e.status)).to.deep.equal(['picking', 'picked', 'partially_delivered']);
  });

  it("When an article is on a partially delivered order, Then its unit cannot change: the order's line is an open line", async () => {
    const { order, a } = await partlyShipped();
    const res = await world.as('providerAdmin', world.client.id).put(`/api/articles/${a}`).send({ um3pl: 'KG' }).expect(422);
    expect(res.body.errors.um3pl[0]).to.contain(`lines on sales order ${order.internal_code}`);
  });
});
