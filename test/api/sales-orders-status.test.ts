/** POST /api/sales-orders/{id}/status: the status graph, every forbidden move, the history and sales_order.status_changed. */
import { expect } from 'chai';
import { forbiddenMoveMessage, type SalesOrderStatus } from '../../src/components/sales-orders/sales-orders.rules.js';
import { createWorld, type Actor, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { eventsOf, movementsOf, outboundState, API_TIME as TIME } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, pathTo, reachStatus, type SalesOrder } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

const STATUSES: SalesOrderStatus[] = ['new', 'picking', 'picked', 'partially_delivered', 'delivered', 'closed', 'cancelled'];
const ALLOWED: Record<SalesOrderStatus, SalesOrderStatus[]> = {
  new: ['picking', 'cancelled'],
  picking: ['picked', 'cancelled'],
  picked: ['delivered', 'cancelled'],
  partially_delivered: ['delivered', 'closed'],
  delivered: [],
  closed: [],
  cancelled: [],
};
/** What a refusal adds after the allowed moves: how partially_delivered is reached, and why a shipped order is closed. */
const hint = (from: SalesOrderStatus, to: SalesOrderStatus): string =>
  to === 'partially_delivered'
    ? ' An order becomes partially_delivered by a shipment (POST /api/sales-orders/{id}/shipments).'
    : from === 'partially_delivered' && to === 'cancelled' ? ' Part of it has shipped: close it to give up the rest.' : '';

describe('POST /api/sales-orders/{id}/status', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const move = (id: number, status: string, actor: Actor = 'operator', company?: number) => world.as(actor, company).post(`/api/sales-orders/${id}/status`).send({ status });
  const changes = (id: number) => eventsOf(h.db, world.client.id, 'sales_order.status_changed', id);
  const userOf = (actor: Actor) => ({ id: world.users[actor].id, name: `User ${world.users[actor].email}`, email: world.users[actor].email });

  it('When an order goes new, picking, picked, delivered, Then each move answers 200 with the order, appends its status and user to the history and records sales_order.status_changed', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 5);
    const order = await createSalesOrder(world, [buc(a, 2)]);
    expect(order.status_history.map((e) => e.at), 'created at its first status\'s time').to.deep.equal([order.created_at]);
    const steps: Array<[SalesOrderStatus, Actor, number | undefined]> = [['picking', 'operator', undefined], ['picked', 'admin', undefined], ['delivered', 'providerAdmin', world.client.id]];
    let previous: SalesOrder = order;
    const responses: SalesOrder[] = [];
    for (const [status, actor, company] of steps) {
      const res = await move(order.id, status, actor, company).expect(200);
      const moved: SalesOrder = res.body.data;
      // Delivering ships the whole line: it shows as delivered, and the order lists the shipment.
      const items = status === 'delivered' ? order.items.map((i) => ({ ...i, delivered_quantity_um3pl: i.quantity_um3pl })) : order.items;
      expect(moved).to.deep.include({ id: order.id, status, items, internal_code: order.internal_code, created_at: order.created_at });
      expect(moved.shipments).to.have.length(status === 'delivered' ? 1 : 0);
      expect(moved.status_history.slice(0, -1)).to.deep.equal(previous.status_history);
      const entry = moved.status_history.at(-1)!;
      expect(entry).to.deep.equal({ status, at: entry.at, user: userOf(actor) });
      expect(entry.at).to.match(TIME);
      expect(entry.at >= previous.status_history.at(-1)!.at).to.equal(true);
      expect(moved.updated_at >= previous.updated_at).to.equal(true);
      expect(entry.at, 'the move\'s time is the order\'s updated_at').to.equal(moved.updated_at);
      expect((await h.db('sales_orders').where('id', order.id).first()).status).to.equal(status);
      responses.push(moved);
      previous = moved;
    }
    expect(previous.status_history.map((e) => e.status)).to.deep.equal(['new', 'picking', 'picked', 'delivered']);
    const rows = await h.db('sales_order_status_history').where('sales_order_id', order.id).orderBy('id');
    expect(rows.map((r) => [r.status, r.user_id])).to.deep.equal([
      ['new', world.users.operator.id], ['picking', world.users.operator.id], ['picked', world.users.admin.id], ['delivered', world.users.providerAdmin.id],
    ]);
    expect(await changes(order.id)).to.deep.equal(responses);
    expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(previous);
  });

  for (const from of ['new', 'picking', 'picked'] as const) {
    it(`When a ${from} order is cancelled, Then it answers 200 cancelled, the history says so and the reservation is released`, async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 10);
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 4), buc(world.articles.client, 1)])).id, pathTo(from));
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 4, available: 6, backordered: 0 });
      const before = (await changes(order.id)).length;
      const res = await move(order.id, 'cancelled').expect(200);
      expect(res.body.data.status).to.equal('cancelled');
      expect(res.body.data.status_history.map((e: { status: string }) => e.status)).to.deep.equal([...order.status_history.map((e) => e.status), 'cancelled']);
      expect(res.body.data.status_history.at(-1).user).to.deep.equal(userOf('operator'));
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
      const events = await changes(order.id);
      expect(events).to.have.length(before + 1);
      expect(events.at(-1)).to.deep.equal(res.body.data);
      expect(await movementsOf(h.db, 'sales_order', order.id)).to.deep.equal([]);
    });
  }

  describe('forbidden moves', () => {
    const orders = new Map<SalesOrderStatus, SalesOrder>();

    before(async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 10);
      for (const status of STATUSES) orders.set(status, await reachStatus(world, await createSalesOrder(world, [buc(a, 2)]), status));
    });

    for (const from of STATUSES) {
      for (const to of STATUSES.filter((s) => s !== from && !ALLOWED[from].includes(s))) {
        it(`When a ${from} order is moved to ${to}, Then it answers 422 on status listing the allowed moves and nothing changes`, async () => {
          const order = orders.get(from)!;
          const before = await outboundState(h.db, world.client.id);
          const res = await move(order.id, to).expect(422);
          const message = forbiddenMoveMessage(from, to);
          expect(res.body).to.deep.equal({ message, errors: { status: [message] } });
          expect(message).to.equal(
            ALLOWED[from].length === 0
              ? `The order is ${from}; it cannot move to ${to} or to any other status.`
              : `The order cannot move from ${from} to ${to}; allowed: ${ALLOWED[from].join(', ')}.${hint(from, to)}`,
          );
          expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
          expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
        });
      }
    }
  });

  describe('refused requests', () => {
    let order: SalesOrder;

    before(async () => {
      order = await createSalesOrder(world, [buc(world.articles.client, 1)]);
    });

    it('When the status is not one of the graph or missing, Then it answers 422 on status', async () => {
      const bad = await move(order.id, 'shipped').expect(422);
      expect(bad.body.errors).to.deep.equal({ status: ['The status field must be one of: new, picking, picked, partially_delivered, delivered, closed, cancelled.'] });
      const missing = await world.as('operator').post(`/api/sales-orders/${order.id}/status`).send({}).expect(422);
      expect(missing.body.errors).to.have.all.keys('status');
      expect((await h.db('sales_orders').where('id', order.id).first()).status).to.equal('new');
    });

    it("When the order is another client's or unknown, Then 404; a viewer gets 403; the order stays new", async () => {
      expect((await move(order.id, 'picking', 'otherClientAdmin').expect(404)).body).to.deep.equal({ message: `Sales order ${order.id} was not found.` });
      expect((await move(99_999_999, 'picking').expect(404)).body).to.deep.equal({ message: 'Sales order 99999999 was not found.' });
      await move(order.id, 'picking', 'viewer').expect(403);
      expect((await h.db('sales_orders').where('id', order.id).first()).status).to.equal('new');
      expect(await changes(order.id)).to.deep.equal([]);
    });
  });
});
