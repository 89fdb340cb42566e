/** GET /api/purchase-orders and GET /api/purchase-orders/{id}: scope, filters, order, paging, and 404 outside the scope. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, TEST_APP_URL, type Harness } from '../helpers/harness.js';
import { kgArticle } from '../fixtures/articles.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';

describe('GET /api/purchase-orders', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let secondSupplier: number;
  /** Orders of the world's client, by name, in creation order. */
  const o: Record<'first' | 'second' | 'partial' | 'sibling' | 'cancelled' | 'stranger', PurchaseOrder> = {} as never;

  const ids = (res: { body: { data: Array<{ id: number }> } }): number[] => res.body.data.map((d) => d.id);
  const list = (query = '', actor: Parameters<World['as']>[0] = 'viewer', company?: number | null) =>
    world.as(actor, company).get(`/api/purchase-orders${query}`).expect(200);

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    secondSupplier = await build.insertPartner(h.db, { company_id: world.client.id, type: 'supplier', name: unique('Second supplier ') });
    const kg = await kgArticle(world, world.client.id);
    const agent = world.as('providerAdmin', world.client.id);
    const line = { article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 10 };
    o.first = await createOrder(agent, world.partners.supplier, [line]);
    o.second = await createOrder(agent, secondSupplier, [line]);
    o.partial = await createOrder(agent, world.partners.supplier, [line, { article_id: kg.id, um3pl: 'KG', quantity_um3pl: '2,5' }]);
    await receive(agent, o.partial.id, world.warehouses[0]!, [[o.partial.items[1]!.id, '1,25']]);
    o.sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
    o.cancelled = await createOrder(agent, world.partners.supplier, [line]);
    await agent.put(`/api/purchase-orders/${o.cancelled.id}`).send({ status: 'cancelled' }).expect(200);
    o.stranger = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
  });

  const clientIds = (): number[] => [o.cancelled.id, o.partial.id, o.second.id, o.first.id];

  it("When a client viewer lists, Then it sees its client's orders only, newest first, with lines and received quantities", async () => {
    const res = await list();
    expect(ids(res)).to.deep.equal(clientIds());
    expect(res.body.meta).to.include({ total: 4, current_page: 1, per_page: 25, from: 1, to: 4, last_page: 1 });
    const partial = res.body.data.find((d: PurchaseOrder) => d.id === o.partial.id);
    expect(partial.status).to.equal('partially_received');
    expect(partial.items.map((i: { quantity_um3pl: number; received_quantity_um3pl: number }) => [i.quantity_um3pl, i.received_quantity_um3pl])).to.deep.equal([[10, 0], [2.5, 1.25]]);
    expect(res.body.data.find((d: PurchaseOrder) => d.id === o.cancelled.id).status).to.equal('cancelled');
  });

  it('When the provider lists, Then it sees the orders of both its clients and none of another provider', async () => {
    expect(ids(await list('', 'providerAdmin'))).to.deep.equal([o.cancelled.id, o.sibling.id, o.partial.id, o.second.id, o.first.id]);
    expect(ids(await list('', 'providerAdmin', world.otherClient.id))).to.deep.equal([o.sibling.id]);
    expect(ids(await other.as('viewer').get('/api/purchase-orders').expect(200))).to.deep.equal([o.stranger.id]);
  });

  it('When filtered by status, Then only orders in that status come', async () => {
    expect(ids(await list('?status=open'))).to.deep.equal([o.second.id, o.first.id]);
    expect(ids(await list('?status=partially_received'))).to.deep.equal([o.partial.id]);
    expect(ids(await list('?status=cancelled'))).to.deep.equal([o.cancelled.id]);
    expect(ids(await list('?status=received'))).to.deep.equal([]);
  });

  it('When the status filter is not a status, Then it answers 422 on status', async () => {
    const res = await world.as('viewer').get('/api/purchase-orders?status=shipped').expect(422);
    expect(Object.keys(res.body.errors)).to.deep.equal(['status']);
  });

  it('When filtered by partner_id, Then only orders to that supplier come', async () => {
    expect(ids(await list(`?partner_id=${secondSupplier}`))).to.deep.equal([o.second.id]);
    expect(ids(await list(`?partner_id=${world.partners.otherClientSupplier}`))).to.deep.equal([]);
    expect(ids(await list(`?partner_id=${world.partners.otherClientSupplier}`, 'providerAdmin'))).to.deep.equal([o.sibling.id]);
  });

  it("When filtered by internal_code, Then only the order with that exact code comes; a sibling's code finds nothing", async () => {
    expect(ids(await list(`?internal_code=${encodeURIComponent(o.first.internal_code)}`))).to.deep.equal([o.first.id]);
    expect(ids(await list(`?internal_code=${encodeURIComponent(o.first.internal_code.slice(0, -1))}`))).to.deep.equal([]);
    expect(ids(await list(`?internal_code=${encodeURIComponent(o.sibling.internal_code)}`))).to.deep.equal([]);
  });

  it('When filtered by updated_since, Then orders updated at or after it come (inclusive, to the microsecond)', async () => {
    await h.db('purchase_orders').where('id', o.first.id).update({ updated_at: '2020-01-01 00:00:00.000000' });
    await h.db('purchase_orders').where('id', o.second.id).update({ updated_at: '2022-03-04 05:06:07.123456' });
    expect(ids(await list('?updated_since=2022-03-04T05:06:07.123456Z'))).to.deep.equal([o.cancelled.id, o.partial.id, o.second.id]);
    expect(ids(await list('?updated_since=2022-03-04T05:06:07.123457Z'))).to.deep.equal([o.cancelled.id, o.partial.id]);
    expect(ids(await list('?updated_since=2019-12-31T23:00:00Z'))).to.deep.equal(clientIds());
    expect(ids(await list('?updated_since=2100-01-01T00:00:00Z'))).to.deep.equal([]);
    const res = await world.as('viewer').get('/api/purchase-orders?updated_since=yesterday').expect(422);
    expect(res.body.errors).to.deep.equal({ updated_since: ['The updated_since field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'] });
  });

  it('When filters are combined, Then an order must match all of them', async () => {
    expect(ids(await list(`?status=open&partner_id=${world.partners.supplier}`))).to.deep.equal([o.first.id]);
    expect(ids(await list(`?status=cancelled&partner_id=${secondSupplier}`))).to.deep.equal([]);
  });

  it('When paging, Then meta and links follow the paginator', async () => {
    const res = await list('?per_page=2&page=2', 'providerAdmin');
    expect(ids(res)).to.deep.equal([o.partial.id, o.second.id]);
    expect(res.body.meta).to.deep.equal({ current_page: 2, from: 3, last_page: 3, path: `${TEST_APP_URL}/api/purchase-orders`, per_page: 2, to: 4, total: 5 });
    expect(res.body.links).to.deep.equal({
      first: `${TEST_APP_URL}/api/purchase-orders?per_page=2&page=1`,
      last: `${TEST_APP_URL}/api/purchase-orders?per_page=2&page=3`,
      prev: `${TEST_APP_URL}/api/purchase-orders?per_page=2&page=1`,
      next: `${TEST_APP_URL}/api/purchase-orders?per_page=2&page=3`,
    });
    expect(ids(await list('?per_page=2&page=3', 'providerAdmin'))).to.deep.equal([o.first.id]);
  });
});

describe('GET /api/purchase-orders/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let order: PurchaseOrder;
  let sibling: PurchaseOrder;
  let stranger: PurchaseOrder;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    order = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 8 }], { notes: 'n', external_reference: 'x' });
    await receive(world.as('operator'), order.id, world.warehouses[1]!, [[order.items[0]!.id, 3]]);
    sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
    stranger = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
  });

  it('When a viewer reads an order of its client, Then it answers it with its received quantities, as the list shows it', async () => {
    const res = await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200);
    expect(res.body.data).to.deep.include({ id: order.id, client_3pl_id: world.client.id, status: 'partially_received', notes: 'n', external_reference: 'x' });
    expect(res.body.data.items).to.deep.equal([{ ...order.items[0], received_quantity_um3pl: 3 }]);
    const listed = await world.as('viewer').get('/api/purchase-orders').expect(200);
    expect(listed.body.data.find((d: PurchaseOrder) => d.id === order.id)).to.deep.equal(res.body.data);
    expect((await world.as('providerViewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data).to.deep.equal(res.body.data);
  });

  it('When the list filter names a code holding reserved characters, percent-encoded, Then it matches that code exactly', async () => {
    const code = unique('PO+A&B/');
    const odd = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { internal_code: code });
    const res = await world.as('viewer').get(`/api/purchase-orders?internal_code=${encodeURIComponent(code)}`).expect(200);
    expect(res.body.data.map((d: PurchaseOrder) => d.id)).to.deep.equal([odd.id]);
    expect(res.body.data[0].internal_code).to.equal(code);
  });

  it('When the code is written by hand with the reserved characters that parse (/ : @ , ( )), Then the server takes it as it is, though the document has clients percent-encode free text', async () => {
    const code = unique('PO/A:1@x,(y)');
    const odd = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { internal_code: code });
    const res = await world.as('viewer').get(`/api/purchase-orders?internal_code=${code}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.map((d: PurchaseOrder) => d.id)).to.deep.equal([odd.id]);
    const searched = await world.as('viewer').get(`/api/articles?search=${world.articles.client.code}/`).expect(200);
    expect(searched.body.data).to.deep.equal([]);
  });

  it("When the order is a sibling client's, another provider's or unknown, Then it answers 404", async () => {
    for (const id of [sibling.id, stranger.id, 99_999_999]) {
      await world.as('viewer').get(`/api/purchase-orders/${id}`).expect(404, { message: `Purchase order ${id} was not found.` });
    }
    await world.as('providerAdmin').get(`/api/purchase-orders/${stranger.id}`).expect(404, { message: `Purchase order ${stranger.id} was not found.` });
    await world.as('providerAdmin').get(`/api/purchase-orders/${sibling.id}`).expect(200);
  });
});
