/** GET /api/receptions and GET /api/receptions/{id}: scope, filters, order, paging, and 404 outside the scope. */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, TEST_APP_URL, type Harness } from '../helpers/harness.js';
import { kgArticle } from '../fixtures/articles.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive, type Reception } from '../fixtures/receptions.js';

describe('GET /api/receptions', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let poA: PurchaseOrder;
  let poB: PurchaseOrder;
  /** Receptions by name, in creation order. */
  const r: Record<'a1' | 'b1' | 'a2' | 'sibling' | 'stranger', Reception> = {} as never;

  const ids = (res: { body: { data: Array<{ id: number }> } }): number[] => res.body.data.map((d) => d.id);
  const list = (query = '', actor: Parameters<World['as']>[0] = 'viewer', company?: number | null) => world.as(actor, company).get(`/api/receptions${query}`).expect(200);

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    const kg = await kgArticle(world, world.client.id);
    const agent = world.as('operator');
    poA = await createOrder(agent, world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 10 }, { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 4 }]);
    poB = await createOrder(agent, world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 10 }]);
    r.a1 = await receive(agent, poA.id, world.warehouses[0]!, [[poA.items[0]!.id, 2], [poA.items[1]!.id, '1,75']], { internal_code: 'REC-A1', notes: 'first' });
    r.b1 = await receive(agent, poB.id, world.warehouses[1]!, [[poB.items[0]!.id, 5]]);
    r.a2 = await receive(world.as('providerAdmin', world.client.id), poA.id, world.warehouses[1]!, [[poA.items[0]!.id, 3]]);
    const sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 2 }]);
    r.sibling = await receive(world.as('providerAdmin'), sibling.id, world.warehouses[0]!, [[sibling.items[0]!.id, 2]]);
    const stranger = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 2 }]);
    r.stranger = await receive(other.as('operator'), stranger.id, other.warehouses[0]!, [[stranger.items[0]!.id, 2]]);
  });

  it("When a client viewer lists, Then it sees its client's receptions only, newest first, as they were created", async () => {
    const res = await list();
    expect(res.body.data).to.deep.equal([r.a2, r.b1, r.a1]);
    expect(res.body.meta).to.include({ total: 3, current_page: 1, from: 1, to: 3, last_page: 1 });
    expect(r.a1.items.map((i) => [i.po_item_id, i.quantity_um3pl])).to.deep.equal([[poA.items[0]!.id, 2], [poA.items[1]!.id, 1.75]]);
  });

  it("When the provider lists, Then it sees both clients' receptions and none of another provider; scoped to a client, that client's", async () => {
    expect(ids(await list('', 'providerAdmin'))).to.deep.equal([r.sibling.id, r.a2.id, r.b1.id, r.a1.id]);
    expect(ids(await list('', 'providerViewer', world.otherClient.id))).to.deep.equal([r.sibling.id]);
    expect(ids(await other.as('viewer').get('/api/receptions').expect(200))).to.deep.equal([r.stranger.id]);
  });

  it('When filtered by purchase_order_id, Then only that order\'s receptions come; an order outside the scope finds nothing', async () => {
    expect(ids(await list(`?purchase_order_id=${poA.id}`))).to.deep.equal([r.a2.id, r.a1.id]);
    expect(ids(await list(`?purchase_order_id=${poB.id}`))).to.deep.equal([r.b1.id]);
    expect(ids(await list(`?purchase_order_id=${r.sibling.purchase_order_id}`))).to.deep.equal([]);
    expect(ids(await list(`?purchase_order_id=${r.stranger.purchase_order_id}`, 'providerAdmin'))).to.deep.equal([]);
    const bad = await world.as('viewer').get('/api/receptions?purchase_order_id=abc').expect(422);
    expect(Object.keys(bad.body.errors)).to.deep.equal(['purchase_order_id']);
  });

  it('When filtered by updated_since, Then receptions updated at or after it come (inclusive, to the microsecond)', async () => {
    await h.db('receptions').where('id', r.a1.id).update({ updated_at: '2020-01-01 00:00:00.000000' });
    await h.db('receptions').where('id', r.b1.id).update({ updated_at: '2022-03-04 05:06:07.123456' });
    expect(ids(await list('?updated_since=2022-03-04T05:06:07.123456Z'))).to.deep.equal([r.a2.id, r.b1.id]);
    expect(ids(await list('?updated_since=2022-03-04T05:06:07.123457Z'))).to.deep.equal([r.a2.id]);
    expect(ids(await list('?updated_since=2022-03-04T07:06:07.123456%2B02:00'))).to.deep.equal([r.a2.id, r.b1.id]);
    expect(ids(await list(`?updated_since=2019-01-01T00:00:00Z&purchase_order_id=${poA.id}`))).to.deep.equal([r.a2.id, r.a1.id]);
    expect(ids(await list('?updated_since=2100-01-01T00:00:00Z'))).to.deep.equal([]);
    const bad = await world.as('viewer').get('/api/receptions?updated_since=2026-02-30T00:00:00Z').expect(422);
    expect(bad.body.errors).to.deep.equal({ updated_since: ['The updated_since field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'] });
  });

  it('When paging, Then meta and links follow the paginator', async () => {
    const res = await list('?per_page=3&page=2', 'providerAdmin');
    expect(ids(res)).to.deep.equal([r.a1.id]);
    expect(res.body.meta).to.deep.equal({ current_page: 2, from: 4, last_page: 2, path: `${TEST_APP_URL}/api/receptions`, per_page: 3, to: 4, total: 4 });
    expect(res.body.links).to.deep.equal({
      first: `${TEST_APP_URL}/api/receptions?per_page=3&page=1`,
      last: `${TEST_APP_URL}/api/receptions?per_page=3&page=2`,
      prev: `${TEST_APP_URL}/api/receptions?per_page=3&page=1`,
      next: null,
    });
  });
});

describe('GET /api/receptions/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let reception: Reception;
  let sibling: Reception;
  let stranger: Reception;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    const po = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
    reception = await receive(world.as('operator'), po.id, world.warehouses[0]!, [[po.items[0]!.id, 5]], { internal_code: 'REC-1', notes: 'n', external_reference: 'e' });
    const siblingPo = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
    sibling = await receive(world.as('providerAdmin'), siblingPo.id, world.warehouses[0]!, [[siblingPo.items[0]!.id, 1]]);
    const strangerPo = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
    stranger = await receive(other.as('operator'), strangerPo.id, other.warehouses[0]!, [[strangerPo.items[0]!.id, 1]]);
  });

  it('When a viewer or the provider reads a reception of the client, Then it answers it as it was created', async () => {
    const res = await world.as('viewer').get(`/api/receptions/${reception.id}`).expect(200);
    expect(res.body.data).to.deep.equal(reception);
    expect(res.body.data).to.include({ internal_code: 'REC-1', notes: 'n', external_reference: 'e', client_3pl_id: world.client.id });
    expect((await world.as('providerViewer').get(`/api/receptions/${reception.id}`).expect(200)).body.data).to.deep.equal(reception);
    expect(await h.db('receptions').where('id', reception.id).first()).to.include({ company_id: world.client.id, internal_code: 'REC-1' });
  });

  it("When the reception is a sibling client's, another provider's or unknown, Then it answers 404", async () => {
    for (const id of [sibling.id, stranger.id, 99_999_999]) {
      await world.as('viewer').get(`/api/receptions/${id}`).expect(404, { message: `Reception ${id} was not found.` });
    }
    await world.as('providerAdmin').get(`/api/receptions/${stranger.id}`).expect(404, { message: `Reception ${stranger.id} was not found.` });
    await world.as('providerAdmin').get(`/api/receptions/${sibling.id}`).expect(200);
  });
});

describe('inbound routes with the inbound module off', () => {
  it('When the inbound module is off for the company, Then every purchase-order and reception route answers 403 naming it', async () => {
    const h = await harness();
    const world = await createWorld(h.app, h.db, { modulesOff: ['inbound'] });
    const message = `The inbound module is not active for company ${world.client.name}.`;
    const agent = world.as('admin');
    await agent.get('/api/purchase-orders').expect(403, { message });
    await agent.get('/api/purchase-orders/1').expect(403, { message });
    await agent.put('/api/purchase-orders/1').send({ notes: 'x' }).expect(403, { message });
    await agent.get('/api/receptions').expect(403, { message });
    await agent.get('/api/receptions/1').expect(403, { message });
    await agent.put('/api/receptions/1').send({ notes: 'x' }).expect(403, { message });
    await agent.post('/api/purchase-orders')
      .send({ partner_id: world.partners.supplier, internal_code: 'PO-OFF', items: [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }] })
      .expect(403, { message });
    await agent.post('/api/receptions').send({ purchase_order_id: 1, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: 1, quantity_um3pl: 1 }] }).expect(403, { message });
    expect(await h.db('purchase_orders').where('company_id', world.client.id)).to.deep.equal([]);
  });
});
