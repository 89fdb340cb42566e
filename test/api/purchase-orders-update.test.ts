/** PUT /api/purchase-orders/{id}: header fields at any time; lines and cancellation only while nothing is received. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { kgArticle, type TestArticle } from '../fixtures/articles.js';
import { eventsOf, inboundState, storedLines } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';

describe('PUT /api/purchase-orders/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let kg: TestArticle;
  let secondSupplier: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    kg = await kgArticle(world, world.client.id);
    secondSupplier = await build.insertPartner(h.db, { company_id: world.client.id, type: 'supplier', name: unique('Second supplier ') });
  });

  /** An open order of 10 BUC and 5 KG of the world's client. */
  const fresh = (extra: Record<string, unknown> = {}): Promise<PurchaseOrder> =>
    createOrder(world.as('operator'), world.partners.supplier, [
      { article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 10 },
      { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 5 },
    ], extra);
  const put = (id: number, body: Record<string, unknown>, actor: Parameters<World['as']>[0] = 'operator', company?: number | null) =>
    world.as(actor, company).put(`/api/purchase-orders/${id}`).send(body);
  const updates = (id: number) => eventsOf(h.db, world.client.id, 'purchase_order.updated', id);

  /** Sends a refused update and checks it is a 422 with exactly `errors` and that nothing changed. */
  async function refused(id: number, body: Record<string, unknown>, errors: Record<string, string[]>, actor: Parameters<World['as']>[0] = 'operator'): Promise<void> {
    const before = await inboundState(h.db, world.client.id);
    const res = await put(id, body, actor).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When the header fields change, Then it answers the order with them, keeps its lines and records purchase_order.updated', async () => {
    const order = await fresh({ notes: 'Before', external_reference: 'ERP-1' });
    const code = unique('PO-NEW-');
    const res = await put(order.id, { notes: 'After', external_reference: 'ERP-2', internal_code: code, partner_id: secondSupplier }).expect(200);
    expect(res.body.data).to.deep.include({ id: order.id, notes: 'After', external_reference: 'ERP-2', internal_code: code, partner_id: secondSupplier, status: 'open', created_at: order.created_at });
    expect(res.body.data.items).to.deep.equal(order.items);
    expect(res.body.data.updated_at > order.updated_at).to.equal(true);
    expect(await h.db('purchase_orders').where('id', order.id).first()).to.include({ notes: 'After', external_reference: 'ERP-2', internal_code: code, partner_id: secondSupplier });
    expect(await updates(order.id)).to.deep.equal([res.body.data]);
    expect((await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data).to.deep.equal(res.body.data);
  });

  it('When notes and external_reference are set to null, Then they are cleared', async () => {
    const order = await fresh({ notes: 'Before', external_reference: 'ERP-1' });
    const res = await put(order.id, { notes: null, external_reference: null }).expect(200);
    expect(res.body.data).to.include({ notes: null, external_reference: null });
  });

  describe('partner_id', () => {
    it("When it is a customer of the client, or another client's supplier seen from the client, Then it answers 422 on partner_id", async () => {
      const order = await fresh();
      const message = 'The partner_id must be a supplier partner of a client in scope.';
      await refused(order.id, { partner_id: world.partners.client, notes: 'x' }, { partner_id: [message] });
      await refused(order.id, { partner_id: world.partners.otherClientSupplier, notes: 'x' }, { partner_id: [message] });
      await refused(order.id, { partner_id: other.partners.supplier, notes: 'x' }, { partner_id: [message] }, 'providerAdmin');
    });

    it("When the provider names the other client's supplier, Then it answers 422: the supplier must be the order's client's", async () => {
      const order = await fresh();
      await refused(order.id, { partner_id: world.partners.otherClientSupplier }, { partner_id: ["The partner_id must be a supplier of the order's client."] }, 'providerAdmin');
      const res = await put(order.id, { partner_id: secondSupplier }, 'providerAdmin').expect(200);
      expect(res.body.data.partner_id).to.equal(secondSupplier);
    });
  });

  describe('internal_code', () => {
    it("When it is another order's code of the same client, Then it answers 422; its own code or a sibling's code is fine", async () => {
      const order = await fresh();
      const taken = await fresh();
      await refused(order.id, { internal_code: taken.internal_code }, { internal_code: ['The internal_code has already been taken for this client.'] });
      await put(order.id, { internal_code: order.internal_code }).expect(200);
      const sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
      const res = await put(order.id, { internal_code: sibling.internal_code }).expect(200);
      expect(res.body.data.internal_code).to.equal(sibling.internal_code);
    });
  });

  describe('items', () => {
    it('When nothing is received, Then items replaces the lines: new ids, the old lines gone', async () => {
      const order = await fresh();
      const res = await put(order.id, { items: [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: '3,25' }] }).expect(200);
      const items = res.body.data.items;
      expect(items).to.have.length(1);
      expect(items[0]).to.deep.include({ article_id: kg.id, article_code: kg.code, um3pl: 'KG', quantity_um3pl: 3.25, received_quantity_um3pl: 0 });
      expect(order.items.map((i) => i.id)).to.not.include(items[0].id);
      expect(await storedLines(h.db, order.id)).to.deep.equal([{ id: items[0].id, article_id: kg.id, um3pl: 'KG', quantity: 3250, received_quantity: 0 }]);
      expect(await updates(order.id)).to.deep.equal([res.body.data]);
      const gone = order.items[0]!.id;
      const refusedReception = await world.as('operator').post('/api/receptions')
        .send({ purchase_order_id: order.id, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: gone, quantity_um3pl: 1 }] }).expect(422);
      expect(refusedReception.body.errors).to.deep.equal({ 'selected_items.0.po_item_id': [`Line ${gone} is not a line of purchase order ${order.id}.`] });
    });

    it('When the lines the order has are sent again (an ERP re-sending its order), Then nothing changes: the same line ids, no updated_at, no event', async () => {
      const order = await fresh();
      const same = order.items.map((i) => ({ article_id: i.article_id, um3pl: i.um3pl, quantity_um3pl: i.quantity_um3pl }));
      const res = await put(order.id, { items: same, notes: order.notes }).expect(200);
      expect(res.body.data).to.deep.equal(order);
      expect(await updates(order.id)).to.deep.equal([]);
      // In another order, or with another quantity, they are new lines.
      const changed = await put(order.id, { items: [same[1], same[0]] }).expect(200);
      expect(changed.body.data.items.map((i: { id: number }) => i.id)).to.not.include(order.items[0]!.id);
      expect(await updates(order.id)).to.have.length(1);
      // Once something is received the lines are locked, but the same lines sent again are still no change.
      await receive(world.as('operator'), order.id, world.warehouses[0]!, [[changed.body.data.items[0].id, 1]]);
      const received = (await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data;
      await put(order.id, { items: [same[1], same[0]] }).expect(200);
      expect((await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data).to.deep.equal(received);
      await refused(order.id, { items: [same[0]] }, { items: ['The lines can change only while nothing is received; the order is partially_received.'] });
    });

    it('When a new line breaks the rules, Then it answers 422 on its path and the old lines stay', async () => {
      const order = await fresh();
      await refused(order.id, { notes: 'x', items: [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: 1 }, { article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: '1,5' }] }, {
        'items.1.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'],
      });
      await refused(order.id, { items: [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }] }, {
        'items.0.article_id': [`Article ${world.articles.otherClient.id} is not an article of this client.`],
      }, 'providerAdmin');
    });

    it('When something is received, Then items is a 422 naming the status and the lines stay; header fields still change', async () => {
      const order = await fresh();
      await receive(world.as('operator'), order.id, world.warehouses[0]!, [[order.items[1]!.id, '0,5']]);
      await refused(order.id, { notes: 'x', items: [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: 9 }] }, {
        items: ['The lines can change only while nothing is received; the order is partially_received.'],
      });
      const res = await put(order.id, { notes: 'Still allowed' }).expect(200);
      expect(res.body.data).to.include({ notes: 'Still allowed', status: 'partially_received' });
      expect(res.body.data.items.map((i: { received_quantity_um3pl: number }) => i.received_quantity_um3pl)).to.deep.equal([0, 0.5]);
    });

    it('When everything is received, Then items is a 422 naming status received', async () => {
      const order = await fresh();
      await receive(world.as('operator'), order.id, world.warehouses[0]!, [[order.items[0]!.id, 10], [order.items[1]!.id, 5]]);
      await refused(order.id, { items: [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: 9 }] }, {
        items: ['The lines can change only while nothing is received; the order is received.'],
      });
    });
  });

  describe('status', () => {
    it('When an open order is cancelled, Then it answers it cancelled, records purchase_order.updated and its lines can no longer change', async () => {
      const order = await fresh();
      const res = await put(order.id, { status: 'cancelled' }).expect(200);
      expect(res.body.data).to.deep.include({ status: 'cancelled', items: order.items });
      expect((await h.db('purchase_orders').where('id', order.id).first()).status).to.equal('cancelled');
      expect(await updates(order.id)).to.deep.equal([res.body.data]);
      await refused(order.id, { items: [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: 1 }] }, { items: ['The order is cancelled; its lines can no longer change.'] });
      const notes = await put(order.id, { notes: 'Cancelled by phone', status: 'cancelled' }).expect(200);
      expect(notes.body.data).to.include({ notes: 'Cancelled by phone', status: 'cancelled' });
    });

    it('When something is received, Then cancelling is a 422 on status and nothing changes, header fields sent with it included', async () => {
      const order = await fresh();
      await receive(world.as('operator'), order.id, world.warehouses[0]!, [[order.items[0]!.id, 1]]);
      await refused(order.id, { status: 'cancelled', notes: 'Not saved' }, { status: ['The order can be cancelled only while nothing is received; it is partially_received.'] });
      expect((await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data).to.include({ status: 'partially_received', notes: null });
    });

    it('When status is anything but cancelled, Then it answers 422 on status', async () => {
      const order = await fresh();
      for (const status of ['received', 'open', 'partially_received']) {
        const res = await put(order.id, { status }).expect(422);
        expect(Object.keys(res.body.errors)).to.deep.equal(['status']);
      }
      expect((await h.db('purchase_orders').where('id', order.id).first()).status).to.equal('open');
    });
  });

  describe('access', () => {
    it("When the order is a sibling's or another provider's, Then it answers 404 and changes nothing", async () => {
      const sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
      const stranger = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]);
      await put(sibling.id, { notes: 'Hijacked' }).expect(404, { message: `Purchase order ${sibling.id} was not found.` });
      await put(stranger.id, { notes: 'Hijacked', status: 'cancelled' }, 'providerAdmin').expect(404, { message: `Purchase order ${stranger.id} was not found.` });
      expect(await h.db('purchase_orders').whereIn('id', [sibling.id, stranger.id]).pluck('notes')).to.deep.equal([null, null]);
      expect(await eventsOf(h.db, other.client.id, 'purchase_order.updated', stranger.id)).to.deep.equal([]);
    });

    it('When a viewer updates, Then it answers 403; without X-Company-Id, 400; nothing changes', async () => {
      const order = await fresh();
      const res = await put(order.id, { notes: 'x' }, 'viewer').expect(403);
      expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
      await put(order.id, { notes: 'x', status: 'cancelled' }, 'operator', null).expect(400, { message: 'The X-Company-Id header is required.' });
      expect(await h.db('purchase_orders').where('id', order.id).first()).to.include({ notes: null, status: 'open' });
      expect(await updates(order.id)).to.deep.equal([]);
    });
  });
});
