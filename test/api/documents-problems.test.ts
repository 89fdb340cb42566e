/**
 * One answer per request: a document create or update that breaks several rules answers one 422
 * listing every problem (a bad partner, a bad warehouse, bad lines, a taken code together), not the
 * first it met; and nothing is written.
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { inboundState, outboundState } from '../fixtures/probes.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';

const INVALID = 'The given data was invalid.';

describe('One answer per document request', () => {
  let h: Harness;
  let world: World;
  let a: Article;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    a = await freshArticle(world, world.client.id);
  });

  const agent = () => world.as('operator');
  const badLines = () => [buc(a, 1.5), { article_id: a.id, um3pl: 'KG', quantity_um3pl: 1 }, buc(world.articles.otherClient, 1)];
  const lineErrorsNow = () => ({
    'items.0.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'],
    'items.1.um3pl': ["The unit must be the article's unit, BUC."],
    'items.2.article_id': [`Article ${world.articles.otherClient.id} is not an article of this client.`],
  });

  it('When a purchase order has a customer as partner, bad lines and a taken code, Then one 422 names them all and nothing is written', async () => {
    const taken = await createOrder(agent(), world.partners.supplier, [buc(a, 1)]);
    const before = await inboundState(h.db, world.client.id);
    const res = await agent().post('/api/purchase-orders').send({ partner_id: world.partners.client, internal_code: taken.internal_code, items: badLines() }).expect(422);
    expect(res.body).to.deep.equal({
      message: INVALID,
      errors: {
        partner_id: ['The partner_id must be a supplier partner of a client in scope.'],
        ...lineErrorsNow(),
        internal_code: ['The internal_code has already been taken for this client.'],
      },
    });
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a purchase order update has another client\'s supplier, bad lines and a taken code, Then one 422 names them all', async () => {
    const [order, other] = [await createOrder(agent(), world.partners.supplier, [buc(a, 1)]), await createOrder(agent(), world.partners.supplier, [buc(a, 1)])];
    const res = await world.as('providerAdmin').put(`/api/purchase-orders/${order.id}`)
      .send({ partner_id: world.partners.otherClientSupplier, internal_code: other.internal_code, items: badLines() }).expect(422);
    expect(res.body.errors).to.deep.equal({
      partner_id: ["The partner_id must be a supplier of the order's client."],
      internal_code: ['The internal_code has already been taken for this client.'],
      ...lineErrorsNow(),
    });
  });

  it('When a sales order has an unknown partner, an unknown warehouse, bad lines and a taken code, Then one 422 names them all and nothing is written', async () => {
    const taken = await createSalesOrder(world, [buc(a, 1)]);
    const before = await outboundState(h.db, world.client.id);
    const res = await agent().post('/api/sales-orders')
      .send({ partner_id: 99_999_999, source_warehouse_id: 99_999_999, internal_code: taken.internal_code, items: badLines() }).expect(422);
    expect(res.body.errors).to.deep.equal({
      partner_id: ['The partner_id must be a client partner of a client in scope.'],
      source_warehouse_id: ['The source_warehouse_id must be a warehouse of the provider.'],
      ...lineErrorsNow(),
      internal_code: ['The internal_code has already been taken for this client.'],
    });
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a sales order update past new changes its lines and warehouse to bad values, Then one 422 names each', async () => {
    const order = await createSalesOrder(world, [buc(a, 1)]);
    await moveThrough(world, order.id, ['picking']);
    const res = await agent().put(`/api/sales-orders/${order.id}`).send({ source_warehouse_id: world.warehouses[1], stock_type: 'STOC_DEFECT', items: [buc(a, 2)] }).expect(422);
    expect(res.body.errors).to.deep.equal({
      source_warehouse_id: ['The source_warehouse_id can change only while the order is new; it is picking.'],
      stock_type: ['The stock_type can change only while the order is new; it is picking.'],
      items: ['The items can change only while the order is new; it is picking.'],
    });
  });

  it('When a return has a supplier as partner, an unknown warehouse and bad lines, Then one 422 names them all', async () => {
    const res = await agent().post('/api/returns').send({ partner_id: world.partners.supplier, warehouse_id: 99_999_999, items: badLines() }).expect(422);
    expect(res.body.errors).to.deep.equal({
      partner_id: ['The partner_id must be a client partner of a client in scope.'],
      warehouse_id: ['The warehouse_id must be a warehouse of the provider.'],
      ...lineErrorsNow(),
    });
  });

  it('When a reception has an unknown warehouse, a line of another order, too much and a taken code, Then one 422 names them all', async () => {
    const order = await createOrder(agent(), world.partners.supplier, [buc(a, 2)]);
    const other = await createOrder(agent(), world.partners.supplier, [buc(a, 2)]);
    const code = unique('REC-');
    await agent().post('/api/receptions').send({ purchase_order_id: other.id, warehouse_id: world.warehouses[0], internal_code: code, selected_items: [{ po_item_id: other.items[0]!.id, quantity_um3pl: 1 }] }).expect(201);
    const res = await agent().post('/api/receptions').send({
      purchase_order_id: order.id,
      warehouse_id: 99_999_999,
      internal_code: code,
      selected_items: [{ po_item_id: order.items[0]!.id, quantity_um3pl: 3 }, { po_item_id: other.items[0]!.id, quantity_um3pl: 1 }],
    }).expect(422);
    expect(res.body.errors).to.deep.equal({
      warehouse_id: ['The warehouse_id must be a warehouse of the provider.'],
      'selected_items.0.quantity_um3pl': ['Receiving 3 would exceed the 2 remaining on this line (2 ordered).'],
      'selected_items.1.po_item_id': [`Line ${other.items[0]!.id} is not a line of purchase order ${order.id}.`],
      internal_code: ['The internal_code has already been taken for this client.'],
    });
  });

  it("When a reception update takes another reception's code, names a line of another reception and raises a line past its order, Then one 422 names all three and nothing moves", async () => {
    const order = await createOrder(agent(), world.partners.supplier, [buc(a, 4), buc(a, 4)]);
    const taken = unique('REC-');
    const other = await receive(agent(), order.id, world.warehouses[0]!, [[order.items[0]!.id, 1]], { internal_code: taken });
    const reception = await receive(agent(), order.id, world.warehouses[0]!, [[order.items[0]!.id, 2], [order.items[1]!.id, 2]]);
    const before = await inboundState(h.db, world.client.id);
    const res = await agent()
      .put(`/api/receptions/${reception.id}`)
      .send({
        internal_code: taken,
        items: [
          { id: reception.items[0]!.id, quantity_um3pl: 4 },
          { id: other.items[0]!.id, quantity_um3pl: 1 },
          { id: reception.items[1]!.id, quantity_um3pl: 3 },
        ],
      })
      .expect(422);
    expect(res.body).to.deep.equal({
      message: INVALID,
      errors: {
        internal_code: ['The internal_code has already been taken for this client.'],
        'items.1.id': [`Line ${other.items[0]!.id} is not a line of reception ${reception.id}.`],
        'items.0.quantity_um3pl': ['Correcting this line to 4 would receive 5 of the 4 ordered on its purchase-order line (1 received by other receptions): correct it to at most 3.'],
      },
    });
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a single top-level field is wrong, Then the message is that problem itself', async () => {
    const res = await agent().post('/api/sales-orders').send({ partner_id: world.partners.supplier, source_warehouse_id: world.warehouses[0], internal_code: unique('SO-'), items: [buc(a, 1)] }).expect(422);
    expect(res.body).to.deep.equal({ message: 'The partner_id must be a client partner of a client in scope.', errors: { partner_id: ['The partner_id must be a client partner of a client in scope.'] } });
  });
});
