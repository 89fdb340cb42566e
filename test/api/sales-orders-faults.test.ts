/**
 * A delivery is one transaction: a failure injected between two line decrements (a trigger that
 * refuses the movement of the second line's article) must leave the first line's stock, the
 * order's status, the movements and the events as they were.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { unchecked } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { withFailingInsert } from '../fixtures/faults.js';
import { balances, deliveryMovements, lastEventId, ledgerMismatches, outboundState, outboxRows } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

const SERVER_ERROR = { message: 'Server Error.' };

/** Runs `work` while the delivery movement of `articleId` cannot be written. */
const withFailingMovementOf = <T>(db: Knex, articleId: number, work: () => Promise<T>) =>
  withFailingInsert(db, 'stock_movements', `NEW.article_id = ${articleId} AND NEW.cause = 'delivery'`, work);

describe('A failure injected inside a delivery (database triggers)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  /** The 500 is outside the document on purpose (nothing documents an internal failure), so this one request is unchecked. */
  const failing = () => unchecked(h.app, { token: world.users.operator.token, company: world.client.id });

  it('When the second line cannot record its movement, Then it answers 500, the first line is not taken off, the order stays picked; without the fault it is delivered', async () => {
    const [first, second] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, first, 10);
    await receiveStock(world, second, 10);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(first, 3), buc(second, 2)])).id, ['picking', 'picked']);
    const before = await outboundState(h.db, world.client.id);
    const stock = { quantity: 10, reserved: 3, available: 7, backordered: 0 };
    expect(await levels(world, first.id)).to.deep.equal(stock);
    const stored = await balances(h.db, { article_id: first.id });
    const lastEvent = await lastEventId(h.db);

    const res = await withFailingMovementOf(h.db, second.id, () => failing().post(`/api/sales-orders/${order.id}/status`).send({ status: 'delivered' }));

    expect([res.status, res.body]).to.deep.equal([500, SERVER_ERROR]);
    expect(res.text).to.not.match(/injected|trigger|stock_movements|SQL/i);
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect(await levels(world, first.id)).to.deep.equal(stock);
    expect(await levels(world, second.id)).to.deep.equal({ quantity: 10, reserved: 2, available: 8, backordered: 0 });
    expect(await balances(h.db, { article_id: first.id })).to.deep.equal(stored);
    expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([]);
    expect(await outboxRows(h.db, { afterId: lastEvent })).to.deep.equal([]);
    expect(await ledgerMismatches(h.db)).to.deep.equal([]);

    const ok = await world.as('operator').post(`/api/sales-orders/${order.id}/status`).send({ status: 'delivered' }).expect(200);
    expect(ok.body.data.status).to.equal('delivered');
    expect(await levels(world, first.id)).to.deep.equal({ quantity: 7, reserved: 0, available: 7, backordered: 0 });
    expect(await levels(world, second.id)).to.deep.equal({ quantity: 8, reserved: 0, available: 8, backordered: 0 });
    const user = world.users.operator.id;
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([
      [first.id, -3000, 'STOC_OK', 'delivery', world.warehouses[0], user],
      [second.id, -2000, 'STOC_OK', 'delivery', world.warehouses[0], user],
    ]);
  });

  it('When the same fault hits a delivery that other orders reserve beside, Then their reservations are untouched too', async () => {
    const [first, second] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, first, 5);
    await receiveStock(world, second, 5);
    await createSalesOrder(world, [buc(first, 1)]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(first, 4), buc(second, 5)])).id, ['picking', 'picked']);
    const before = await outboundState(h.db, world.client.id);

    const res = await withFailingMovementOf(h.db, second.id, () => failing().post(`/api/sales-orders/${order.id}/status`).send({ status: 'delivered' }));
    expect([res.status, res.body]).to.deep.equal([500, SERVER_ERROR]);

    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect(await levels(world, first.id)).to.deep.equal({ quantity: 5, reserved: 5, available: 0, backordered: 0 });
    expect(await levels(world, second.id)).to.deep.equal({ quantity: 5, reserved: 5, available: 0, backordered: 0 });
  });

  it('When the status_changed event, recorded after every line was taken off, cannot be written, Then both lines keep their stock and reservation', async () => {
    const [first, second] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, first, 6);
    await receiveStock(world, second, 6);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(first, 1), buc(second, 6)])).id, ['picking', 'picked']);
    const before = await outboundState(h.db, world.client.id);

    const res = await withFailingInsert(h.db, 'outbox_events', `NEW.type = 'sales_order.status_changed'`, () =>
      failing().post(`/api/sales-orders/${order.id}/status`).send({ status: 'delivered' }),
    );
    expect([res.status, res.body]).to.deep.equal([500, SERVER_ERROR]);

    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect(await levels(world, first.id)).to.deep.equal({ quantity: 6, reserved: 1, available: 5, backordered: 0 });
    expect(await levels(world, second.id)).to.deep.equal({ quantity: 6, reserved: 6, available: 0, backordered: 0 });
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([]);
    await world.as('operator').post(`/api/sales-orders/${order.id}/status`).send({ status: 'delivered' }).expect(200);
    expect(await levels(world, second.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
  });
});
