/**
 * Retry-safe status moves: a move to the status the order already has is a 200 that changes
 * nothing; a move takes an Idempotency-Key; a move without a body is a 422 on status; and a move
 * that loses a race is decided again on the status the winner left (16.9), never a 422 that
 * contradicts the graph. The races run with 20 connections on MariaDB, so they really overlap.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createHttpServer } from '../../src/platform/http/http-server.js';
import { forbiddenMoveMessage } from '../../src/components/sales-orders/sales-orders.rules.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { testEnv } from '../helpers/test-env.js';
import { freshArticle } from '../fixtures/articles.js';
import { eventsOf, movements, outboundState } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, pathTo } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

describe('POST /api/sales-orders/{id}/status, retried and raced', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const move = (id: number, status: string, key?: string) => {
    const req = world.as('operator').post(`/api/sales-orders/${id}/status`);
    if (key) req.set('Idempotency-Key', key);
    return req.send({ status });
  };

  describe('a move to the status the order has', () => {
    for (const status of ['new', 'picking', 'picked', 'delivered', 'cancelled']) {
      it(`When a ${status} order is moved to ${status}, Then it answers 200 with the order as it is, and no history, event or stock changes`, async () => {
        const a = await freshArticle(world, world.client.id);
        await receiveStock(world, a, 3);
        const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, pathTo(status));
        const before = await outboundState(h.db, world.client.id);
        const res = await move(order.id, status).expect(200);
        expect(res.body.data).to.deep.equal(order);
        expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      });
    }
  });

  describe('Idempotency-Key', () => {
    it('When a move is sent again with its key, Then the stored answer is replayed and nothing happens twice; the key with another status is a 422', async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 2);
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, ['picking', 'picked']);
      const key = unique('move-');
      const first = await move(order.id, 'delivered', key).expect(200);
      const again = await move(order.id, 'delivered', key).expect(200);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      const other = await move(order.id, 'cancelled', key).expect(422);
      expect(other.body.errors).to.deep.equal({ 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] });
      expect((await eventsOf(h.db, world.client.id, 'sales_order.status_changed', order.id)).map((e) => e.status)).to.deep.equal(['picking', 'picked', 'delivered']);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    });
  });

  describe('no body', () => {
    it('When the move is posted without any body or Content-Type, Then it answers 422 on status and the order stays', async () => {
      const order = await createSalesOrder(world, [buc(world.articles.client, 1)]);
      const res = await request(createHttpServer(h.app))
        .post(`/api/sales-orders/${order.id}/status`)
        .set('Authorization', `Bearer ${world.users.operator.token}`)
        .set('X-Company-Id', String(world.client.id))
        .expect(422);
      expect(res.body).to.deep.equal({ message: 'The given data was invalid.', errors: { status: ['The status field is required.'] } });
      expect((await h.db('sales_orders').where('id', order.id).first()).status).to.equal('new');
    });
  });

  describe('races (16.9)', () => {
    const orders = 20;

    it('When a cancellation races a move to picking, Then the cancellation always succeeds (decided again on picking when it lost), and a losing move to picking is a true 422', async function () {
      this.timeout(120_000);
      const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
      const ids: number[] = [];
      for (let i = 0; i < orders; i++) ids.push((await createSalesOrder(world, [buc(a, 1)])).id);
      const pairs = await Promise.all(ids.map(async (id, i) => {
        const [first, second] = i % 2 ? ['picking', 'cancelled'] : ['cancelled', 'picking'];
        const [r1, r2] = await Promise.all([move(id, first!), move(id, second!)]);
        return { id, picking: first === 'picking' ? r1! : r2!, cancel: first === 'cancelled' ? r1! : r2! };
      }));
      let pickedFirst = 0;
      for (const { id, picking, cancel } of pairs) {
        expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
        expect(cancel.body.data.status).to.equal('cancelled');
        const history = (await h.db('sales_order_status_history').where('sales_order_id', id).orderBy('id')).map((r) => r.status);
        if (picking.status === 200) {
          pickedFirst++;
          expect(history).to.deep.equal(['new', 'picking', 'cancelled']);
        } else {
          const message = forbiddenMoveMessage('cancelled', 'picking');
          expect(picking.body).to.deep.equal({ message, errors: { status: [message] } });
          expect(history).to.deep.equal(['new', 'cancelled']);
        }
        const events = (await eventsOf(h.db, world.client.id, 'sales_order.status_changed', id)).map((e) => e.status);
        expect(events).to.deep.equal(history.slice(1));
      }
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
      console.log(`      [${testEnv.engine}] ${pickedFirst} of ${orders} picking moves landed before the cancellation`);
    });

    it('When the same move is sent twice at once, Then both answer 200 with the moved order, and it happens once: one history entry, one event, one delivery', async function () {
      this.timeout(120_000);
      const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-');
      await receiveStock(world, a, orders);
      const ids: number[] = [];
      for (let i = 0; i < orders; i++) ids.push((await moveThrough(world, (await createSalesOrder(world, [buc(a, 1)])).id, ['picking', 'picked'])).id);
      const results = await Promise.all(ids.map((id) => Promise.all([move(id, 'delivered'), move(id, 'delivered')])));
      for (const [i, pair] of results.entries()) {
        for (const res of pair) {
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body.data.status).to.equal('delivered');
        }
        const history = (await h.db('sales_order_status_history').where('sales_order_id', ids[i]).orderBy('id')).map((r) => r.status);
        expect(history).to.deep.equal(['new', 'picking', 'picked', 'delivered']);
        expect((await eventsOf(h.db, world.client.id, 'sales_order.status_changed', ids[i])).map((e) => e.status)).to.deep.equal(['picking', 'picked', 'delivered']);
      }
      expect((await movements(h.db, { article_id: a.id, cause: 'delivery' })).length).to.equal(orders);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    });
  });
});
