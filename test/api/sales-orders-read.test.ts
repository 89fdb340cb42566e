/** GET /api/sales-orders and GET /api/sales-orders/{id}: filters, scope, order and the single read. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { buc, createSalesOrder, createSalesOrderOf, moveThrough, type SalesOrder } from '../fixtures/sales-orders.js';

const INVALID = 'The given data was invalid.';

describe('GET /api/sales-orders', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let secondCustomer: number;
  /** Of the world's client, oldest first: new (customer), cancelled (customer), picking (second customer). */
  let fresh: SalesOrder;
  let cancelled: SalesOrder;
  let picking: SalesOrder;
  /** Of the world's other client. */
  let sibling: SalesOrder;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    secondCustomer = await build.insertPartner(h.db, { company_id: world.client.id, type: 'client', name: unique('Second customer ') });
    const a = world.articles.client;
    fresh = await createSalesOrder(world, [buc(a, 1)]);
    cancelled = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, ['cancelled']);
    picking = await moveThrough(world, (await createSalesOrder(world, [buc(a, 3)], { partner_id: secondCustomer })).id, ['picking']);
    sibling = await createSalesOrderOf(world, world.otherClient.id, [buc(world.articles.otherClient, 1)], { internal_code: unique('SO-B-') });
    await createSalesOrder(other, [buc(other.articles.client, 1)]);
  });

  const ids = (body: { data: Array<{ id: number }> }) => body.data.map((o) => o.id);
  const list = (query: string, actor: Parameters<World['as']>[0] = 'viewer', company?: number | null) => world.as(actor, company).get(`/api/sales-orders${query}`).expect(200);

  it("When a client's viewer lists, Then it sees exactly its client's orders, newest first, as GET shows each", async () => {
    const res = await list('');
    expect(ids(res.body)).to.deep.equal([picking.id, cancelled.id, fresh.id]);
    expect(res.body.meta).to.include({ total: 3, current_page: 1, from: 1, to: 3, last_page: 1 });
    expect(res.body.data).to.deep.equal([picking, cancelled, fresh]);
    for (const order of [fresh, cancelled, picking]) {
      expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
    }
  });

  it('When pages are asked for, Then per_page splits the newest-first list', async () => {
    const first = await list('?per_page=2');
    expect(ids(first.body)).to.deep.equal([picking.id, cancelled.id]);
    expect(first.body.meta).to.include({ total: 3, last_page: 2, per_page: 2 });
    const second = await list('?per_page=2&page=2');
    expect(ids(second.body)).to.deep.equal([fresh.id]);
  });

  it('When filtered by status, Then only orders in that status come back', async () => {
    expect(ids((await list('?status=new')).body)).to.deep.equal([fresh.id]);
    expect(ids((await list('?status=cancelled')).body)).to.deep.equal([cancelled.id]);
    expect(ids((await list('?status=picking')).body)).to.deep.equal([picking.id]);
    expect(ids((await list('?status=delivered')).body)).to.deep.equal([]);
  });

  it('When filtered by partner_id, Then only orders to that partner come back', async () => {
    expect(ids((await list(`?partner_id=${world.partners.client}`)).body)).to.deep.equal([cancelled.id, fresh.id]);
    expect(ids((await list(`?partner_id=${secondCustomer}`)).body)).to.deep.equal([picking.id]);
    expect(ids((await list(`?partner_id=${world.partners.otherClientCustomer}`)).body)).to.deep.equal([]);
  });

  it('When filtered by internal_code, Then only the order with exactly that code comes back', async () => {
    expect(ids((await list(`?internal_code=${encodeURIComponent(cancelled.internal_code)}`)).body)).to.deep.equal([cancelled.id]);
    expect(ids((await list(`?internal_code=${encodeURIComponent(cancelled.internal_code.slice(0, -1))}`)).body)).to.deep.equal([]);
  });

  it('When filtered by updated_since, Then orders updated at or after it come back, an update included', async () => {
    expect(ids((await list(`?updated_since=${picking.updated_at}`)).body)).to.deep.equal([picking.id]);
    expect(ids((await list(`?updated_since=${fresh.updated_at}`)).body)).to.deep.equal([picking.id, cancelled.id, fresh.id]);
    const updated = await world.as('operator').put(`/api/sales-orders/${fresh.id}`).send({ notes: 'Touched' }).expect(200);
    expect(ids((await list(`?updated_since=${updated.body.data.updated_at}`)).body)).to.deep.equal([fresh.id]);
    await world.as('operator').put(`/api/sales-orders/${fresh.id}`).send({ notes: null }).expect(200);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(ids((await list(`?updated_since=${later}`)).body)).to.deep.equal([]);
  });

  it('When a filter is malformed, Then it answers 422 on that filter', async () => {
    const status = await world.as('viewer').get('/api/sales-orders?status=shipped').expect(422);
    expect(status.body).to.deep.equal({ message: INVALID, errors: { status: ['The status field must be one of: new, picking, picked, partially_delivered, delivered, closed, cancelled.'] } });
    const since = await world.as('viewer').get('/api/sales-orders?updated_since=yesterday').expect(422);
    expect(since.body.errors).to.have.all.keys('updated_since');
    const partner = await world.as('viewer').get('/api/sales-orders?partner_id=abc').expect(422);
    expect(partner.body.errors).to.have.all.keys('partner_id');
  });

  describe('scope', () => {
    it("When the other client's admin lists, Then it sees only its client's order", async () => {
      expect(ids((await list('', 'otherClientAdmin')).body)).to.deep.equal([sibling.id]);
    });

    it("When the provider's viewer lists without X-Company-Id, Then it sees the orders of both clients; with it, one client's", async () => {
      expect(ids((await list('', 'providerViewer', null)).body)).to.deep.equal([sibling.id, picking.id, cancelled.id, fresh.id]);
      expect(ids((await list('', 'providerViewer', world.provider.id)).body)).to.deep.equal([sibling.id, picking.id, cancelled.id, fresh.id]);
      expect(ids((await list('', 'providerViewer', world.otherClient.id)).body)).to.deep.equal([sibling.id]);
      expect(ids((await list('', 'providerViewer', world.client.id)).body)).to.deep.equal([picking.id, cancelled.id, fresh.id]);
    });

    it("When another tenant's users list, Then they see none of these orders", async () => {
      const theirs = ids((await other.as('providerViewer').get('/api/sales-orders').expect(200)).body);
      expect(theirs).to.have.length(1);
      expect(theirs).to.not.include.members([fresh.id, cancelled.id, picking.id, sibling.id]);
    });
  });
});

describe('GET /api/sales-orders/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let order: SalesOrder;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    const created = await createSalesOrder(world, [buc(world.articles.client, 2)], { notes: 'Fragile' });
    order = await moveThrough(world, created.id, ['picking', 'picked']);
  });

  it('When read in scope, Then it answers the order with its lines and full status history', async () => {
    const res = await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200);
    expect(res.body.data).to.deep.equal(order);
    expect(res.body.data.status_history.map((e: { status: string }) => e.status)).to.deep.equal(['new', 'picking', 'picked']);
    expect(res.body.data.items).to.have.length(1);
    expect((await world.as('providerViewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
  });

  it('When read out of scope or unknown, Then it answers 404 naming the id', async () => {
    const notFound = (id: number) => ({ message: `Sales order ${id} was not found.` });
    expect((await world.as('otherClientAdmin').get(`/api/sales-orders/${order.id}`).expect(404)).body).to.deep.equal(notFound(order.id));
    expect((await world.as('providerViewer', world.otherClient.id).get(`/api/sales-orders/${order.id}`).expect(404)).body).to.deep.equal(notFound(order.id));
    expect((await other.as('providerAdmin').get(`/api/sales-orders/${order.id}`).expect(404)).body).to.deep.equal(notFound(order.id));
    expect((await world.as('viewer').get('/api/sales-orders/99999999').expect(404)).body).to.deep.equal(notFound(99999999));
  });
});
