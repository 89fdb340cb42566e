/**
 * Short-closing a purchase order: PUT with `status: "closed"` while `partially_received` answers
 * 200 with status `closed`; receiving on it is then a 422 (through REST and the reception
 * integration); corrections of its receptions still apply and keep it closed; an order with nothing
 * received is cancelled instead (422); closing again changes nothing.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { ETSM_TEST_TOKEN, harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { eventsOf, inboundState } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { levels } from '../fixtures/stock.js';

describe('PUT /api/purchase-orders/{id} with status closed', () => {
  let h: Harness;
  let world: World;
  let a: Article;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    a = await freshArticle(world, world.client.id);
  });

  const close = (id: number) => world.as('operator').put(`/api/purchase-orders/${id}`).send({ status: 'closed' });
  /** An order of 10 with `received` of it received. */
  async function orderWith(received: number): Promise<{ order: PurchaseOrder; receptionId?: number }> {
    const order = await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 10)]);
    if (received === 0) return { order };
    const reception = await receive(world.as('operator'), order.id, world.warehouses[0]!, [[order.items[0]!.id, received]]);
    return { order, receptionId: reception.id };
  }

  it('When a partially received order is closed, Then it answers 200 closed, records purchase_order.updated, and keeps what was received', async () => {
    const { order } = await orderWith(4);
    const res = await close(order.id).expect(200);
    expect(res.body.data).to.deep.include({ id: order.id, status: 'closed' });
    expect(res.body.data.items[0]).to.include({ quantity_um3pl: 10, received_quantity_um3pl: 4 });
    const events = await eventsOf(h.db, world.client.id, 'purchase_order.updated', order.id);
    expect(events[events.length - 1]).to.deep.equal(res.body.data);
    const listed = await world.as('viewer').get('/api/purchase-orders?status=closed').expect(200);
    expect(listed.body.data.map((o: { id: number }) => o.id)).to.include(order.id);
    const graphql = await world.as('viewer').post('/graphql').send({ query: '{ purchase_orders(status: closed, limit: 100) { id status } }' }).expect(200);
    expect(graphql.body.data.purchase_orders).to.deep.include({ id: order.id, status: 'closed' });
  });

  it('When goods are received on a closed order, through REST or the reception integration, Then it answers 422 on purchase_order_id and nothing changes', async () => {
    const { order } = await orderWith(4);
    await close(order.id).expect(200);
    const before = await inboundState(h.db, world.client.id);
    const body = { purchase_order_id: order.id, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: order.items[0]!.id, quantity_um3pl: 1 }] };
    const message = `Purchase order ${order.id} is closed; nothing can be received against it.`;
    expect((await world.as('operator').post('/api/receptions').send(body).expect(422)).body.errors).to.deep.equal({ purchase_order_id: [message] });
    const etsm = api(h.app, { token: ETSM_TEST_TOKEN, company: world.client.id });
    expect((await etsm.post('/api/integrations/etsm/receptions').send(body).expect(422)).body.errors).to.deep.equal({ purchase_order_id: [message] });
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a reception of a closed order is corrected, Then the correction applies and the order stays closed', async () => {
    const { order, receptionId } = await orderWith(4);
    await close(order.id).expect(200);
    const reception = (await world.as('viewer').get(`/api/receptions/${receptionId}`).expect(200)).body.data;
    await world.as('operator').put(`/api/receptions/${receptionId}`).send({ items: [{ id: reception.items[0].id, quantity_um3pl: 3 }] }).expect(200);
    const after = (await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data;
    expect(after).to.deep.include({ status: 'closed' });
    expect(after.items[0].received_quantity_um3pl).to.equal(3);
  });

  it('When an order with nothing received, a received order or a cancelled one is closed, Then it answers 422 on status saying why, and nothing changes', async () => {
    const { order: open } = await orderWith(0);
    const { order: received } = await orderWith(10);
    const { order: cancelled } = await orderWith(0);
    await world.as('operator').put(`/api/purchase-orders/${cancelled.id}`).send({ status: 'cancelled' }).expect(200);
    const before = await inboundState(h.db, world.client.id);
    expect((await close(open.id).expect(422)).body.errors).to.deep.equal({ status: ['Nothing of the order is received yet, so there is nothing to short-close: cancel it instead (status cancelled).'] });
    expect((await close(received.id).expect(422)).body.errors).to.deep.equal({ status: ['The order is received in full; there is nothing left to close.'] });
    expect((await close(cancelled.id).expect(422)).body.errors).to.deep.equal({ status: ['The order is cancelled; it cannot be closed.'] });
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a closed order is closed again, Then it answers 200 unchanged and records no event; cancelling or new lines are 422', async () => {
    const { order } = await orderWith(2);
    const closed = (await close(order.id).expect(200)).body.data;
    const events = (await eventsOf(h.db, world.client.id, 'purchase_order.updated', order.id)).length;
    expect((await close(order.id).expect(200)).body.data).to.deep.equal(closed);
    expect(await eventsOf(h.db, world.client.id, 'purchase_order.updated', order.id)).to.have.length(events);
    const refused = await world.as('operator').put(`/api/purchase-orders/${order.id}`).send({ status: 'cancelled', items: [buc(a, 1)] }).expect(422);
    expect(refused.body.errors).to.deep.equal({
      status: ['The order can be cancelled only while nothing is received; it is closed.'],
      items: ['The order is being cancelled by this update; its lines cannot change with it.'],
    });
  });

  it('When the order is closed with its stock gone out, Then its lines no longer hold the article\'s unit', async () => {
    const b = await freshArticle(world, world.client.id);
    const order = await createOrder(world.as('operator'), world.partners.supplier, [buc(b, 5)]);
    await receive(world.as('operator'), order.id, world.warehouses[0]!, [[order.items[0]!.id, 1]]);
    await world.as('operator').put(`/api/articles/${b.id}`).send({ um3pl: 'KG' }).expect(422);
    await close(order.id).expect(200);
    const so = await createSalesOrder(world, [buc(b, 1)], { internal_code: `SO-${b.code}` });
    await moveThrough(world, so.id, ['picking', 'picked', 'delivered']);
    expect(await levels(world, b.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    await world.as('operator').put(`/api/articles/${b.id}`).send({ um3pl: 'KG' }).expect(200);
  });
});
