/**
 * POST /api/returns against an order that shipped part of itself: a partially delivered or closed
 * order takes returns, each article capped by what its shipments delivered (less earlier returns);
 * an article of which nothing shipped yet was not delivered.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { buc, createSalesOrder, moveThrough, ship, type SalesOrder } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

const tooMuch = (left: number, delivered: number) => `At most ${left} of this article can still be returned (${delivered} delivered).`;

describe('POST /api/returns', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const returnAgainst = (orderId: number, lines: Array<[number, number]>) =>
    world.as('operator').post('/api/returns').send({
      partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: orderId,
      items: lines.map(([article_id, quantity_um3pl]) => ({ article_id, um3pl: 'BUC', quantity_um3pl })),
    });

  /** A picked order of 5 of `a` and 2 of `b` (their stock received), 3 of `a` shipped. */
  async function partlyShipped(): Promise<{ order: SalesOrder; a: number; b: number }> {
    const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, a, 5);
    await receiveStock(world, b, 2);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 5), buc(b, 2)])).id, ['picking', 'picked']);
    await ship(world, order, [[0, 3]]);
    return { order, a: a.id, b: b.id };
  }

  it('When the order is partially delivered, Then each article comes back at most as much as shipped, and one not shipped yet is refused on its line', async () => {
    const { order, a, b } = await partlyShipped();
    const refused = await returnAgainst(order.id, [[a, 4], [b, 1]]).expect(422);
    expect(refused.body.errors).to.deep.equal({
      'items.0.quantity_um3pl': [tooMuch(3, 3)],
      'items.1.article_id': [`Article ${b} was not delivered by sales order ${order.id}.`],
    });
    await returnAgainst(order.id, [[a, 2]]).expect(201);
    expect((await returnAgainst(order.id, [[a, 2]]).expect(422)).body.errors).to.deep.equal({ 'items.0.quantity_um3pl': [tooMuch(1, 3)] });
    expect(await levels(world, a)).to.deep.equal({ quantity: 4, reserved: 2, available: 2, backordered: 0 });
  });

  it('When the order was closed short, Then what shipped may come back, and no more', async () => {
    const { order, a } = await partlyShipped();
    await world.as('operator').post(`/api/sales-orders/${order.id}/status`).send({ status: 'closed' }).expect(200);
    expect((await returnAgainst(order.id, [[a, 4]]).expect(422)).body.errors).to.deep.equal({ 'items.0.quantity_um3pl': [tooMuch(3, 3)] });
    const res = await returnAgainst(order.id, [[a, 3]]).expect(201);
    expect(res.body.data).to.deep.include({ sales_order_id: order.id });
    expect(await levels(world, a)).to.deep.equal({ quantity: 5, reserved: 0, available: 5, backordered: 0 });
  });
});
