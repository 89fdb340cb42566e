/** POST /api/receptions: one transaction of reception, stock, received quantities, status and events; every refusal writes nothing. */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { kgArticle, type TestArticle } from '../fixtures/articles.js';
import { balance, eventsOf, inboundState, movementsOf, storedLines } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';

const RECEPTION_FIELDS = ['id', 'client_3pl_id', 'purchase_order_id', 'warehouse_id', 'internal_code', 'notes', 'external_reference', 'items', 'created_at', 'updated_at'];
const ITEM_FIELDS = ['id', 'po_item_id', 'article_id', 'article_code', 'um3pl', 'quantity_um3pl', 'lot', 'expiry_date'];

describe('POST /api/receptions', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let kg: TestArticle;
  let wh1: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    kg = await kgArticle(world, world.client.id);
    wh1 = world.warehouses[0]!;
  });

  /** An open order of 10 BUC and 7.5 KG of the world's client. */
  const order = (): Promise<PurchaseOrder> =>
    createOrder(world.as('operator'), world.partners.supplier, [
      { article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 10 },
      { article_id: kg.id, um3pl: 'KG', quantity_um3pl: '7,5' },
    ]);
  const post = (body: Record<string, unknown>, actor: Parameters<World['as']>[0] = 'operator', company?: number | null) =>
    world.as(actor, company).post('/api/receptions').send({ warehouse_id: wh1, ...body });
  const line = (po_item_id: number, quantity_um3pl: number | string) => ({ po_item_id, quantity_um3pl });

  /** Posts a reception that must be refused with exactly `errors`, and checks that nothing at all was written. */
  async function refused(body: Record<string, unknown>, errors: Record<string, string[]>, actor: Parameters<World['as']>[0] = 'operator'): Promise<void> {
    const before = await inboundState(h.db, world.client.id);
    const res = await post(body, actor).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When a client operator receives part of an order, Then it stores the reception, raises STOC_OK stock, updates the order and records the events', async () => {
    const po = await order();
    const [bucItem, kgItem] = po.items as [PurchaseOrder['items'][number], PurchaseOrder['items'][number]];
    const res = await post({ purchase_order_id: po.id, internal_code: unique('REC-'), notes: 'Two pallets', external_reference: 'ASN-1', selected_items: [line(bucItem.id, 4), line(kgItem.id, '2,5')] }).expect(201);
    const reception = res.body.data;
    expect(reception).to.have.all.keys(RECEPTION_FIELDS);
    expect(reception).to.deep.include({ client_3pl_id: world.client.id, purchase_order_id: po.id, warehouse_id: wh1, notes: 'Two pallets', external_reference: 'ASN-1' });
    for (const item of reception.items) expect(item).to.have.all.keys(ITEM_FIELDS);
    expect(reception.items.map((i: { id: number }) => ({ ...i, id: 0 }))).to.deep.equal([
      { id: 0, po_item_id: bucItem.id, article_id: world.articles.client.id, article_code: world.articles.client.code, um3pl: 'BUC', quantity_um3pl: 4, lot: null, expiry_date: null },
      { id: 0, po_item_id: kgItem.id, article_id: kg.id, article_code: kg.code, um3pl: 'KG', quantity_um3pl: 2.5, lot: null, expiry_date: null },
    ]);
    expect((await h.db('reception_items').where('reception_id', reception.id).orderBy('id')).map((r: { quantity: unknown }) => Number(r.quantity))).to.deep.equal([4000, 2500]);

    const key = { company_id: world.client.id, warehouse_id: wh1, stock_type: 'STOC_OK', cause: 'reception', document_kind: 'reception', document_id: reception.id, user_id: world.users.operator.id };
    expect(await movementsOf(h.db, 'reception', reception.id)).to.deep.equal([
      { ...key, article_id: world.articles.client.id, delta: 4000 },
      { ...key, article_id: kg.id, delta: 2500 },
    ]);
    const stock = await world.as('viewer').get(`/api/stock?warehouse_id=${wh1}`).expect(200);
    expect(stock.body.data.map((r: { article_id: number; stock_type: string; quantity: number }) => [r.article_id, r.stock_type, r.quantity])).to.deep.equal([
      [world.articles.client.id, 'STOC_OK', 4],
      [kg.id, 'STOC_OK', 2.5],
    ]);
    expect(await world.as('viewer').get(`/api/stock?warehouse_id=${world.warehouses[1]}`).expect(200)).to.have.nested.property('body.data').that.deep.equals([]);

    const updated = (await world.as('viewer').get(`/api/purchase-orders/${po.id}`).expect(200)).body.data;
    expect(updated.status).to.equal('partially_received');
    expect(updated.items.map((i: { received_quantity_um3pl: number }) => i.received_quantity_um3pl)).to.deep.equal([4, 2.5]);
    expect((await storedLines(h.db, po.id)).map((l) => l.received_quantity)).to.deep.equal([4000, 2500]);

    expect(await eventsOf(h.db, world.client.id, 'reception.created', reception.id)).to.deep.equal([reception]);
    expect(await eventsOf(h.db, world.client.id, 'purchase_order.updated', po.id)).to.deep.equal([updated]);
    const document = { type: 'reception', id: reception.id };
    expect(await eventsOf(h.db, world.client.id, 'stock.changed')).to.deep.equal([
      { ...stock.body.data[0], delta: 4, cause: 'reception', document },
      { ...stock.body.data[1], delta: 2.5, cause: 'reception', document },
    ]);
    expect((await world.as('viewer').get(`/api/receptions/${reception.id}`).expect(200)).body.data).to.deep.equal(reception);
  });

  it('When the provider receives into its second warehouse without internal_code, Then the stock goes there and internal_code is null', async () => {
    const po = await order();
    const res = await post({ purchase_order_id: po.id, warehouse_id: world.warehouses[1], selected_items: [line(po.items[0]!.id, 10)] }, 'providerAdmin').expect(201);
    expect(res.body.data).to.include({ internal_code: null, notes: null, external_reference: null, warehouse_id: world.warehouses[1], client_3pl_id: world.client.id });
    expect(await balance(h.db, { clientId: world.client.id, warehouseId: world.warehouses[1]!, articleId: world.articles.client.id })).to.equal(10000);
    expect((await movementsOf(h.db, 'reception', res.body.data.id)).map((m) => [m.warehouse_id, m.user_id])).to.deep.equal([[world.warehouses[1], world.users.providerAdmin.id]]);
  });

  it('When two lines of the order name the same article, Then one balance rises by both and each line keeps its own received quantity', async () => {
    const article = await kgArticle(world, world.client.id);
    const po = await createOrder(world.as('operator'), world.partners.supplier, [
      { article_id: article.id, um3pl: 'KG', quantity_um3pl: 2 },
      { article_id: article.id, um3pl: 'KG', quantity_um3pl: 3 },
    ]);
    const reception = await receive(world.as('operator'), po.id, wh1, [[po.items[1]!.id, '2,75'], [po.items[0]!.id, 2]]);
    expect(await balance(h.db, { clientId: world.client.id, warehouseId: wh1, articleId: article.id })).to.equal(4750);
    expect((await movementsOf(h.db, 'reception', reception.id)).map((m) => m.delta)).to.deep.equal([2750, 2000]);
    expect((await storedLines(h.db, po.id)).map((l) => [l.quantity, l.received_quantity])).to.deep.equal([[2000, 2000], [3000, 2750]]);
    const stock = await world.as('viewer').get(`/api/stock?article_id=${article.id}`).expect(200);
    expect(stock.body.data.map((r: { warehouse_id: number; quantity: number }) => [r.warehouse_id, r.quantity])).to.deep.equal([[wh1, 4.75]]);
  });

  describe('quantities', () => {
    it('When a line receives more than remains, Then it answers 422 on selected_items.N.quantity_um3pl and writes nothing', async () => {
      const po = await order();
      await receive(world.as('operator'), po.id, wh1, [[po.items[0]!.id, 4]]);
      await refused({ purchase_order_id: po.id, selected_items: [line(po.items[1]!.id, 1), line(po.items[0]!.id, 7)] }, {
        'selected_items.1.quantity_um3pl': ['Receiving 7 would exceed the 6 remaining on this line (10 ordered).'],
      });
    });

    it('When a KG line receives 0.001 more than ordered, Then it is a 422; exactly the remainder is received', async () => {
      const po = await order();
      const kgItem = po.items[1]!.id;
      await refused({ purchase_order_id: po.id, selected_items: [line(kgItem, '7,501')] }, {
        'selected_items.0.quantity_um3pl': ['Receiving 7.501 would exceed the 7.5 remaining on this line (7.5 ordered).'],
      });
      await receive(world.as('operator'), po.id, wh1, [[kgItem, '2,499']]);
      await refused({ purchase_order_id: po.id, selected_items: [line(kgItem, 5.002)] }, {
        'selected_items.0.quantity_um3pl': ['Receiving 5.002 would exceed the 5.001 remaining on this line (7.5 ordered).'],
      });
      await receive(world.as('operator'), po.id, wh1, [[kgItem, 5.001]]);
      expect((await storedLines(h.db, po.id)).map((l) => l.received_quantity)).to.deep.equal([0, 7500]);
    });

    it('When a fully received line gets more, Then it answers 422 with nothing remaining', async () => {
      const po = await order();
      await receive(world.as('operator'), po.id, wh1, [[po.items[0]!.id, 10], [po.items[1]!.id, 7.5]]);
      await refused({ purchase_order_id: po.id, selected_items: [line(po.items[0]!.id, 1)] }, {
        'selected_items.0.quantity_um3pl': ['Receiving 1 would exceed the 0 remaining on this line (10 ordered).'],
      });
    });

    it('When a quantity breaks the quantity rules, Then it answers 422 on its path with the rule message', async () => {
      const po = await order();
      const [buc, kgItem] = [po.items[0]!.id, po.items[1]!.id];
      await refused({ purchase_order_id: po.id, selected_items: [line(buc, 1.5)] }, { 'selected_items.0.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'] });
      await refused({ purchase_order_id: po.id, selected_items: [line(buc, 1), line(kgItem, '1,2345')] }, { 'selected_items.1.quantity_um3pl': ['The quantity may have at most 3 decimals.'] });
      await refused({ purchase_order_id: po.id, selected_items: [line(kgItem, 0)] }, { 'selected_items.0.quantity_um3pl': ['The quantity must be greater than 0.'] });
      await refused({ purchase_order_id: po.id, selected_items: [line(kgItem, '-1')] }, { 'selected_items.0.quantity_um3pl': ['The quantity must be greater than 0.'] });
    });

    it('When a whole-only KG article gets a fractional quantity, Then it answers 422 with the article message', async () => {
      const whole = await kgArticle(world, world.client.id, true);
      const po = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: whole.id, um3pl: 'KG', quantity_um3pl: 5 }]);
      await refused({ purchase_order_id: po.id, selected_items: [line(po.items[0]!.id, '2,5')] }, {
        'selected_items.0.quantity_um3pl': [`The quantity must be a whole number: article ${whole.code} takes whole quantities only.`],
      });
    });
  });

  describe('lines', () => {
    it('When a po_item_id is a line of another order, Then it answers 422 on selected_items.N.po_item_id', async () => {
      const po = await order();
      const another = await order();
      const foreign = another.items[0]!.id;
      await refused({ purchase_order_id: po.id, selected_items: [line(po.items[0]!.id, 1), line(foreign, 1)] }, {
        'selected_items.1.po_item_id': [`Line ${foreign} is not a line of purchase order ${po.id}.`],
      });
    });

    it('When the same po_item_id appears twice, Then it answers 422 on the repeat, even when the sum would fit', async () => {
      const po = await order();
      const item = po.items[0]!.id;
      await refused({ purchase_order_id: po.id, selected_items: [line(item, 2), line(item, 3)] }, {
        'selected_items.1.po_item_id': [`Line ${item} appears more than once; send it once with the whole quantity.`],
      });
    });

    it('When several lines are bad, Then each is reported at once', async () => {
      const po = await order();
      const [buc, kgItem] = [po.items[0]!.id, po.items[1]!.id];
      await refused({ purchase_order_id: po.id, selected_items: [line(buc, 11), line(99_999_999, 1), line(kgItem, '0,5'), line(buc, 1)] }, {
        'selected_items.0.quantity_um3pl': ['Receiving 11 would exceed the 10 remaining on this line (10 ordered).'],
        'selected_items.1.po_item_id': [`Line 99999999 is not a line of purchase order ${po.id}.`],
        'selected_items.3.po_item_id': [`Line ${buc} appears more than once; send it once with the whole quantity.`],
      });
    });

    it('When selected_items is empty, Then it answers 422 on selected_items', async () => {
      const po = await order();
      const res = await post({ purchase_order_id: po.id, selected_items: [] }).expect(422);
      expect(Object.keys(res.body.errors)).to.deep.equal(['selected_items']);
    });
  });

  describe('order and warehouse', () => {
    it("When the warehouse is another provider's or unknown, Then it answers 422 on warehouse_id", async () => {
      const po = await order();
      for (const warehouse of [other.warehouses[0]!, 99_999_999]) {
        await refused({ purchase_order_id: po.id, warehouse_id: warehouse, selected_items: [line(po.items[0]!.id, 1)] }, {
          warehouse_id: ['The warehouse_id must be a warehouse of the provider.'],
        });
      }
    });

    it('When the order is cancelled, Then it answers 422 on purchase_order_id', async () => {
      const po = await order();
      await world.as('operator').put(`/api/purchase-orders/${po.id}`).send({ status: 'cancelled' }).expect(200);
      await refused({ purchase_order_id: po.id, selected_items: [line(po.items[0]!.id, 1)] }, {
        purchase_order_id: [`Purchase order ${po.id} is cancelled; nothing can be received against it.`],
      });
    });

    it("When the order is a sibling client's, another provider's or unknown, Then it answers 422 on purchase_order_id and writes nothing", async () => {
      const sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
      const stranger = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
      const message = 'The purchase_order_id must be a purchase order in scope.';
      const siblingBefore = await inboundState(h.db, world.otherClient.id);
      const strangerBefore = await inboundState(h.db, other.client.id);
      await refused({ purchase_order_id: sibling.id, selected_items: [line(sibling.items[0]!.id, 1)] }, { purchase_order_id: [message] });
      await refused({ purchase_order_id: stranger.id, selected_items: [line(stranger.items[0]!.id, 1)] }, { purchase_order_id: [message] }, 'providerAdmin');
      await refused({ purchase_order_id: 99_999_999, selected_items: [line(1, 1)] }, { purchase_order_id: [message] });
      expect(await inboundState(h.db, world.otherClient.id)).to.deep.equal(siblingBefore);
      expect(await inboundState(h.db, other.client.id)).to.deep.equal(strangerBefore);
    });
  });

  it("When internal_code repeats another reception's of the client, Then it answers 422 on internal_code; a purchase order's code is another kind", async () => {
    const po = await order();
    const code = unique('REC-');
    await receive(world.as('operator'), po.id, wh1, [[po.items[0]!.id, 1]], { internal_code: code });
    await refused({ purchase_order_id: po.id, internal_code: code, selected_items: [line(po.items[0]!.id, 1)] }, { internal_code: ['The internal_code has already been taken for this client.'] });
    const res = await post({ purchase_order_id: po.id, internal_code: po.internal_code, selected_items: [line(po.items[0]!.id, 1)] }).expect(201);
    expect(res.body.data.internal_code).to.equal(po.internal_code);
  });

  describe('access', () => {
    it('When a viewer receives, Then it answers 403; without X-Company-Id, 400; nothing is written', async () => {
      const po = await order();
      const before = await inboundState(h.db, world.client.id);
      const body = { purchase_order_id: po.id, selected_items: [line(po.items[0]!.id, 1)] };
      const res = await post(body, 'viewer').expect(403);
      expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
      await post(body, 'operator', null).expect(400, { message: 'The X-Company-Id header is required.' });
      expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
    });
  });
});
