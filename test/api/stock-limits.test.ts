/**
 * The most a stock balance holds (16.8): on hand and reserved each at most 10^12 units, far below
 * 2^53 thousandths. A write that would take a balance beyond it is a 422 naming the line and the
 * limit, and nothing of it is written; before, the 19th sales order of 500 lines × 10^9 answered a
 * 500 ("Not a stored quantity"). Enforced by the statement that raises, so concurrent writers
 * cannot pass it together.
 */
import { expect } from 'chai';
import { MAX_BALANCE } from '../../src/kernel/quantity.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { inboundState, outboundState } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { buc, createSalesOrder, orderBody } from '../fixtures/sales-orders.js';
import { levels } from '../fixtures/stock.js';

const LINE = 1_000_000_000;
const LINES = 500;

describe('The most a stock balance holds', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const full = (a: Article) => Array.from({ length: LINES }, () => buc(a, LINE));
  const limitMessage = (verb: string, a: Article, what: string) =>
    `${verb} ${LINE} would take the STOC_OK stock of article ${a.code} in warehouse ${world.warehouses[0]} above the most a stock balance holds ${what}, ${MAX_BALANCE}.`;

  it('When sales orders of 500 lines × 10^9 reserve up to the limit, Then the order that would pass it is a 422 on the line that does, and nothing of it is written', async function () {
    this.timeout(120_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'MAX-');
    for (let i = 0; i < 2; i++) await createSalesOrder(world, full(a));
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: MAX_BALANCE, available: 0, backordered: MAX_BALANCE });
    const before = await outboundState(h.db, world.client.id);
    const res = await world.as('operator').post('/api/sales-orders').send(orderBody(world, full(a))).expect(422);
    expect(res.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': [limitMessage('Reserving', a, 'reserved')] });
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a reception would take the stock on hand past the limit, Then it is a 422 on the line and nothing is received', async function () {
    this.timeout(120_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'MAX-');
    const orders: PurchaseOrder[] = [];
    for (let i = 0; i < 3; i++) orders.push(await createOrder(world.as('operator'), world.partners.supplier, full(a)));
    const receive = (order: PurchaseOrder) => world.as('operator').post('/api/receptions')
      .send({ purchase_order_id: order.id, warehouse_id: world.warehouses[0], selected_items: order.items.map((i) => ({ po_item_id: i.id, quantity_um3pl: LINE })) });
    await receive(orders[0]!).expect(201);
    await receive(orders[1]!).expect(201);
    const before = await inboundState(h.db, world.client.id);
    const res = await receive(orders[2]!).expect(422);
    expect(res.body.errors).to.deep.equal({ 'selected_items.0.quantity_um3pl': [limitMessage('Adding', a, 'on hand')] });
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
    expect((await levels(world, a.id)).quantity).to.equal(MAX_BALANCE);
  });

  it('When a return, or a sales order moved to another warehouse, would pass the limit, Then each is a 422 on what moved it', async function () {
    this.timeout(120_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'MAX-');
    const returnBody = () => ({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], items: full(a) });
    for (let i = 0; i < 2; i++) await world.as('operator').post('/api/returns').send(returnBody()).expect(201);
    const refused = await world.as('operator').post('/api/returns').send(returnBody()).expect(422);
    expect(refused.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': [limitMessage('Adding', a, 'on hand')] });

    for (let i = 0; i < 2; i++) await createSalesOrder(world, full(a));
    const elsewhere = await createSalesOrder(world, [buc(a, LINE)], { source_warehouse_id: world.warehouses[1] });
    const moved = await world.as('operator').put(`/api/sales-orders/${elsewhere.id}`).send({ source_warehouse_id: world.warehouses[0] }).expect(422);
    expect(moved.body.errors).to.deep.equal({ source_warehouse_id: [limitMessage('Reserving', a, 'reserved')] });
    expect((await levels(world, a.id, world.warehouses[1])).reserved).to.equal(LINE);
  });

  it('When 6 sales orders of 500 × 10^9 race for one balance, Then exactly 2 are created and the others are the 422: the limit holds under concurrency', async function () {
    this.timeout(180_000);
    const a = await freshArticle(world, world.client.id, 'BUC', 'MAX-');
    const results = await Promise.all(Array.from({ length: 6 }, () => world.as('operator').post('/api/sales-orders').send(orderBody(world, full(a), { internal_code: unique('SO-MAX-') }))));
    expect(results.map((r) => r.status).sort()).to.deep.equal([201, 201, 422, 422, 422, 422]);
    expect((await levels(world, a.id)).reserved).to.equal(MAX_BALANCE);
  });
});
