/** PUT /api/sales-orders/{id}: what changes at any status, what only while new, the reservation that follows the lines, and sales_order.updated. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { eventsOf, movements, outboundState } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, pathTo, type SalesOrder } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';

const CODE_TAKEN = 'The internal_code has already been taken for this client.';
const NOT_CLIENT_PARTNER = 'The partner_id must be a client partner of a client in scope.';
const OTHER_CLIENT = "The partner_id must be a client partner of the order's client.";
const WAREHOUSE = 'The source_warehouse_id must be a warehouse of the provider.';

describe('PUT /api/sales-orders/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let secondCustomer: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    secondCustomer = await build.insertPartner(h.db, { company_id: world.client.id, type: 'client', name: unique('Second customer ') });
  });

  const put = (id: number, body: Record<string, unknown>, actor: Parameters<World['as']>[0] = 'operator', company?: number) =>
    world.as(actor, company).put(`/api/sales-orders/${id}`).send(body);
  const updates = (id: number) => eventsOf(h.db, world.client.id, 'sales_order.updated', id);

  it('When every field of a new order changes, Then it answers 200 with the order, stores it, moves the reservation and records sales_order.updated', async () => {
    const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, a, 10);
    const order = await createSalesOrder(world, [buc(a, 5)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 5, available: 5, backordered: 0 });
    const code = unique('SO-NEW-');
    const res = await put(order.id, {
      partner_id: secondCustomer, source_warehouse_id: world.warehouses[1], stock_type: 'STOC_DEFECT', internal_code: code,
      notes: 'Back door', external_reference: 'ERP-9', items: [buc(b, 2), buc(a, 1)],
    }).expect(200);
    const updated = res.body.data;
    expect(updated).to.deep.include({
      id: order.id, client_3pl_id: world.client.id, partner_id: secondCustomer, source_warehouse_id: world.warehouses[1], stock_type: 'STOC_DEFECT',
      internal_code: code, status: 'new', notes: 'Back door', external_reference: 'ERP-9', created_at: order.created_at, status_history: order.status_history,
    });
    expect(updated.updated_at > order.updated_at).to.equal(true);
    expect(updated.items.map((i: { article_id: number; quantity_um3pl: number }) => [i.article_id, i.quantity_um3pl])).to.deep.equal([[b.id, 2], [a.id, 1]]);
    const lines = await h.db('sales_order_items').where('sales_order_id', order.id).orderBy('id');
    expect(lines.map((l) => [l.article_id, Number(l.quantity)])).to.deep.equal([[b.id, 2000], [a.id, 1000]]);
    expect(await h.db('sales_orders').where('id', order.id).first()).to.include({ partner_id: secondCustomer, source_warehouse_id: world.warehouses[1], stock_type: 'STOC_DEFECT', internal_code: code });
    expect(await updates(order.id)).to.deep.equal([updated]);
    expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(updated);

    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    expect(await levels(world, a.id, world.warehouses[1], 'STOC_DEFECT')).to.deep.equal({ quantity: 0, reserved: 1, available: 0, backordered: 1 });
    expect(await levels(world, b.id, world.warehouses[1], 'STOC_DEFECT')).to.deep.equal({ quantity: 0, reserved: 2, available: 0, backordered: 2 });
  });

  it('When only the items of a new order are replaced, Then GET /api/stock shows the reservation moved from the old lines to the new', async () => {
    const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, a, 10);
    await receiveStock(world, b, 4);
    const order = await createSalesOrder(world, [buc(a, 6)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 6, available: 4, backordered: 0 });
    expect(await levels(world, b.id)).to.deep.equal({ quantity: 4, reserved: 0, available: 4, backordered: 0 });
    await put(order.id, { items: [buc(a, 2), buc(b, 5)] }).expect(200);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 2, available: 8, backordered: 0 });
    expect(await levels(world, b.id)).to.deep.equal({ quantity: 4, reserved: 5, available: 0, backordered: 1 });
    expect(await movements(h.db, { article_id: [a.id, b.id], cause: 'delivery' })).to.deep.equal([]);
  });

  for (const status of ['picking', 'picked', 'delivered', 'cancelled']) {
    it(`When notes, external_reference and internal_code of a ${status} order change, Then it answers 200 and the reservation stays`, async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 10);
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 3)])).id, pathTo(status));
      const stock = await levels(world, a.id);
      const code = unique('SO-RENAMED-');
      const res = await put(order.id, { notes: 'Late', external_reference: 'X-1', internal_code: code }).expect(200);
      expect(res.body.data).to.deep.equal({ ...order, notes: 'Late', external_reference: 'X-1', internal_code: code, updated_at: res.body.data.updated_at });
      expect(await h.db('sales_orders').where('id', order.id).first()).to.include({ notes: 'Late', external_reference: 'X-1', internal_code: code, status });
      expect(await updates(order.id)).to.deep.equal([res.body.data]);
      expect(await levels(world, a.id)).to.deep.equal(stock);
    });
  }

  it('When nothing changes (an empty body, every field at its value, the lines it has), Then it answers the order as it was and records no event', async () => {
    const a = await freshArticle(world, world.client.id);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)], { notes: 'Same' })).id, ['picking']);
    const before = await outboundState(h.db, world.client.id);
    const same = { partner_id: order.partner_id, source_warehouse_id: order.source_warehouse_id, stock_type: order.stock_type, internal_code: order.internal_code, notes: 'Same', external_reference: null };
    // The lines it has, sent again (an ERP re-sending its order), are no change either, at any status: same line ids, same reservation.
    const lines = { items: order.items.map((i) => ({ article_id: i.article_id, um3pl: i.um3pl, quantity_um3pl: i.quantity_um3pl })) };
    for (const body of [{}, same, lines, { ...same, ...lines }]) {
      const res = await put(order.id, body).expect(200);
      expect(res.body.data).to.deep.equal(order);
    }
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect(await updates(order.id)).to.deep.equal([]);
  });

  describe('fields that change only while the order is new', () => {
    const changes = (other: Article): Array<[string, Record<string, unknown>]> => [
      ['items', { items: [buc(other, 1)] }],
      ['source_warehouse_id', { source_warehouse_id: world.warehouses[1] }],
      ['stock_type', { stock_type: 'STOC_QUARANTINE' }],
      ['partner_id', { partner_id: secondCustomer }],
    ];
    for (const status of ['picking', 'picked', 'delivered', 'cancelled']) {
      it(`When items, source_warehouse_id, stock_type or partner_id of a ${status} order change, Then each is a 422 naming the status and nothing changes`, async () => {
        const a = await freshArticle(world, world.client.id);
        const b = await freshArticle(world, world.client.id);
        await receiveStock(world, a, 10);
        const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 4)])).id, pathTo(status));
        const before = await outboundState(h.db, world.client.id);
        const stock = await levels(world, a.id);
        for (const [field, body] of changes(b)) {
          const message = `The ${field} can change only while the order is new; it is ${status}.`;
          const res = await put(order.id, { ...body, notes: 'Not stored' }).expect(422);
          expect(res.body, field).to.deep.equal({ message, errors: { [field]: [message] } });
        }
        expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
        expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
        expect(await levels(world, a.id)).to.deep.equal(stock);
        expect(await levels(world, b.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
      });
    }

    it('When the items of a picking order change, Then the message is exactly the one the issue pins', async () => {
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(world.articles.client, 1)])).id, ['picking']);
      const res = await put(order.id, { items: [buc(world.articles.client, 2)] }).expect(422);
      expect(res.body.errors).to.deep.equal({ items: ['The items can change only while the order is new; it is picking.'] });
    });
  });

  describe('refused values', () => {
    let order: SalesOrder;
    let a: Article;

    before(async () => {
      a = await freshArticle(world, world.client.id);
      order = await createSalesOrder(world, [buc(a, 2)]);
    });

    async function refused(body: Record<string, unknown>, errors: Record<string, string[]>, actor: Parameters<World['as']>[0] = 'operator', company?: number): Promise<void> {
      const before = await outboundState(h.db, world.client.id);
      const res = await put(order.id, body, actor, company).expect(422);
      expect(res.body.errors).to.deep.equal(errors);
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 2, available: 0, backordered: 2 });
    }

    it('When internal_code is taken by another order of the client, Then 422 on internal_code; its own code is accepted', async () => {
      const taken = await createSalesOrder(world, [buc(world.articles.client, 1)]);
      await refused({ internal_code: taken.internal_code, notes: 'x' }, { internal_code: [CODE_TAKEN] });
      const res = await put(order.id, { internal_code: order.internal_code }).expect(200);
      expect(res.body.data.internal_code).to.equal(order.internal_code);
    });

    it("When partner_id is a supplier, another client's customer or another tenant's customer, Then 422 on partner_id", async () => {
      await refused({ partner_id: world.partners.supplier }, { partner_id: [NOT_CLIENT_PARTNER] });
      await refused({ partner_id: other.partners.client }, { partner_id: [NOT_CLIENT_PARTNER] });
      await refused({ partner_id: world.partners.otherClientCustomer }, { partner_id: [OTHER_CLIENT] }, 'providerAdmin', world.provider.id);
    });

    it("When source_warehouse_id is another provider's warehouse, Then 422 on source_warehouse_id", async () => {
      await refused({ source_warehouse_id: other.warehouses[0] }, { source_warehouse_id: [WAREHOUSE] });
    });

    it('When a replacement line breaks the line rules, Then 422 on items.N and the old lines and reservation stay', async () => {
      await refused({ items: [buc(a, 1), buc(a, 1.5)] }, { 'items.1.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'] });
      await refused({ items: [buc(world.articles.otherClient, 1)] }, { 'items.0.article_id': [`Article ${world.articles.otherClient.id} is not an article of this client.`] });
      await refused({ items: [{ ...buc(a, 1), um3pl: 'KG' }] }, { 'items.0.um3pl': ["The unit must be the article's unit, BUC."] });
      await refused({ stock_type: 'STOC_LOST' }, { stock_type: ['The stock_type field must be one of: STOC_OK, STOC_DEFECT, STOC_QUARANTINE.'] });
    });

    it("When the order is another client's or the caller a viewer, Then 404 or 403 and nothing changes", async () => {
      const before = await outboundState(h.db, world.client.id);
      const res = await put(order.id, { notes: 'Intruder' }, 'otherClientAdmin').expect(404);
      expect(res.body).to.deep.equal({ message: `Sales order ${order.id} was not found.` });
      await put(order.id, { notes: 'Intruder' }, 'viewer').expect(403);
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    });
  });
});
