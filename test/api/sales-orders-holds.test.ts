/**
 * Holds: POST /api/sales-orders/{id}/hold and /release. A held order neither ships nor moves
 * (except to cancelled, which lifts the hold); holding and releasing are retry-safe, and each
 * change records sales_order.updated with the order.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { eventsOf, outboundState } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, reachStatus, type SalesOrder } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

describe('Holds of sales orders', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const hold = (id: number, reason: string) => world.as('operator').post(`/api/sales-orders/${id}/hold`).send({ reason });
  const release = (id: number) => world.as('operator').post(`/api/sales-orders/${id}/release`);
  const move = (id: number, status: string) => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status });
  const updates = (id: number) => eventsOf(h.db, world.client.id, 'sales_order.updated', id);
  const heldMessage = (id: number, reason: string) => `The order is on hold (${reason}); release it first with POST /api/sales-orders/${id}/release.`;

  async function pickedOrder(): Promise<SalesOrder> {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 5);
    return moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, ['picking', 'picked']);
  }

  describe('POST /api/sales-orders/{id}/hold', () => {
    it('When an open order is held, Then it answers 200 with on_hold and the reason, records sales_order.updated, and the same hold again changes nothing', async () => {
      const order = await pickedOrder();
      const res = await hold(order.id, '  Credit check  ').expect(200);
      expect(res.body.data).to.deep.include({ id: order.id, status: 'picked', on_hold: true, hold_reason: 'Credit check', items: order.items, status_history: order.status_history });
      expect(res.body.data.updated_at >= order.updated_at).to.equal(true);
      expect(await updates(order.id)).to.deep.equal([res.body.data]);

      const before = await outboundState(h.db, world.client.id);
      expect((await hold(order.id, 'Credit check').expect(200)).body.data).to.deep.equal(res.body.data);
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);

      const changed = await hold(order.id, 'Address check').expect(200);
      expect(changed.body.data).to.deep.include({ on_hold: true, hold_reason: 'Address check' });
      expect(await updates(order.id)).to.deep.equal([res.body.data, changed.body.data]);
    });

    it('When a held order is moved on, Then 422 on on_hold naming the hold; it may still be updated, and cancelling it releases the reservation and lifts the hold', async () => {
      const order = await pickedOrder();
      const article = order.items[0]!.article_id;
      await hold(order.id, 'Fraud review').expect(200);
      const before = await outboundState(h.db, world.client.id);
      const refused = await move(order.id, 'delivered').expect(422);
      expect(refused.body).to.deep.equal({ message: heldMessage(order.id, 'Fraud review'), errors: { on_hold: [heldMessage(order.id, 'Fraud review')] } });
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      // The graph still comes first: a move it forbids names the graph, held or not.
      expect((await move(order.id, 'new').expect(422)).body.errors).to.have.all.keys('status');

      await world.as('operator').put(`/api/sales-orders/${order.id}`).send({ notes: 'Held for review' }).expect(200);
      const cancelled = await move(order.id, 'cancelled').expect(200);
      expect(cancelled.body.data).to.deep.include({ status: 'cancelled', on_hold: false, hold_reason: null, notes: 'Held for review' });
      expect(await levels(world, article)).to.deep.equal({ quantity: 5, reserved: 0, available: 5, backordered: 0 });
    });

    for (const status of ['delivered', 'closed', 'cancelled']) {
      it(`When the order is ${status}, Then 422 on status and nothing changes`, async () => {
        const a = await freshArticle(world, world.client.id);
        await receiveStock(world, a, 5);
        const order = await reachStatus(world, await createSalesOrder(world, [buc(a, 2)]), status);
        const before = await outboundState(h.db, world.client.id);
        const res = await hold(order.id, 'Too late').expect(422);
        const message = `The order is ${status}; only an open order (new, picking, picked or partially_delivered) can be held.`;
        expect(res.body).to.deep.equal({ message, errors: { status: [message] } });
        expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      });
    }

    it('When the reason is blank or missing, Then 422 on reason; another client\'s order is a 404; a viewer gets 403', async () => {
      const order = await createSalesOrder(world, [buc(world.articles.client, 1)]);
      expect((await hold(order.id, '   ').expect(422)).body.errors).to.deep.equal({ reason: ['The reason must say why the order is held; it must not be blank.'] });
      expect((await world.as('operator').post(`/api/sales-orders/${order.id}/hold`).send({}).expect(422)).body.errors).to.have.all.keys('reason');
      await world.as('otherClientAdmin').post(`/api/sales-orders/${order.id}/hold`).send({ reason: 'x' }).expect(404);
      await world.as('viewer').post(`/api/sales-orders/${order.id}/hold`).send({ reason: 'x' }).expect(403);
      expect((await h.db('sales_orders').where('id', order.id).first()).on_hold).to.satisfy((v: unknown) => !v);
    });

    it('When a hold is retried with its Idempotency-Key after the order was released, Then the stored answer comes back and the order stays released', async () => {
      const order = await pickedOrder();
      const send = () => world.as('operator').post(`/api/sales-orders/${order.id}/hold`).set('Idempotency-Key', `hold-${order.id}`).send({ reason: 'Stock count' });
      const first = await send().expect(200);
      await release(order.id).expect(200);
      const again = await send().expect(200);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.include({ on_hold: false, hold_reason: null });
    });
  });

  describe('POST /api/sales-orders/{id}/release', () => {
    it('When a held order is released, Then it answers 200 without the hold, records sales_order.updated, and moves again; releasing it again changes nothing', async () => {
      const order = await pickedOrder();
      await hold(order.id, 'Credit check').expect(200);
      const released = await release(order.id).expect(200);
      expect(released.body.data).to.deep.include({ id: order.id, status: 'picked', on_hold: false, hold_reason: null });
      expect((await updates(order.id)).at(-1)).to.deep.equal(released.body.data);

      const before = await outboundState(h.db, world.client.id);
      expect((await release(order.id).expect(200)).body.data).to.deep.equal(released.body.data);
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      expect((await move(order.id, 'delivered').expect(200)).body.data.status).to.equal('delivered');
      expect((await release(order.id).expect(200)).body.data.status).to.equal('delivered');
    });

    it("When the order is another client's or unknown, Then 404; a viewer gets 403", async () => {
      const order = await createSalesOrder(world, [buc(world.articles.client, 1)]);
      await hold(order.id, 'Credit check').expect(200);
      expect((await world.as('otherClientAdmin').post(`/api/sales-orders/${order.id}/release`).expect(404)).body).to.deep.equal({ message: `Sales order ${order.id} was not found.` });
      await world.as('operator').post('/api/sales-orders/99999999/release').expect(404);
      await world.as('viewer').post(`/api/sales-orders/${order.id}/release`).expect(403);
      expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data.on_hold).to.equal(true);
    });
  });
});
