/** POST /api/sales-orders: the order, its partner, warehouse, stock type and lines, its code, its reservation, its event and Idempotency-Key. */
import { expect } from 'chai';
import { createWorld, unique, type Actor, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { eventsOf, movements, outboundState, API_TIME as TIME, expectApiTime, expectId } from '../fixtures/probes.js';
import { buc, orderBody, type Line } from '../fixtures/sales-orders.js';
import { levels } from '../fixtures/stock.js';

const ORDER_FIELDS = ['id', 'client_3pl_id', 'partner_id', 'source_warehouse_id', 'stock_type', 'internal_code', 'status', 'notes', 'external_reference', 'on_hold', 'hold_reason', 'items', 'shipments', 'status_history', 'created_at', 'updated_at'];
const INVALID = 'The given data was invalid.';
const NOT_CLIENT_PARTNER = 'The partner_id must be a client partner of a client in scope.';
const WAREHOUSE = 'The source_warehouse_id must be a warehouse of the provider.';
const CODE_TAKEN = 'The internal_code has already been taken for this client.';
const WHOLE_UNIT = 'The quantity must be a whole number: unit BUC is counted in whole units.';

describe('POST /api/sales-orders', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let article: Article;
  let kg: Article;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    article = await freshArticle(world, world.client.id);
    kg = await freshArticle(world, world.client.id, 'KG');
  });

  const post = (body: Record<string, unknown>, actor: Actor = 'operator', company?: number | null) => world.as(actor, company).post('/api/sales-orders').send(body);
  const kgLine = (quantity: number | string): Line => ({ article_id: kg.id, um3pl: 'KG', quantity_um3pl: quantity });
  const ordersCoded = (code: string) => h.db('sales_orders').where('internal_code', code);

  it('When an operator orders a BUC and a KG line ("2,5"), Then it answers 201 with the new order, its lines, its history and times, stores it, reserves it and records sales_order.created', async () => {
    const a = await freshArticle(world, world.client.id);
    const code = unique('SO-');
    const operator = world.users.operator;
    const res = await post(orderBody(world, [buc(a, 3), kgLine('2,5')], { internal_code: code, notes: 'Ring twice', external_reference: 'ERP-77' })).expect(201);
    const order = res.body.data;
    expect(order).to.have.all.keys(ORDER_FIELDS);
    expect(order).to.deep.include({
      client_3pl_id: world.client.id, partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], stock_type: 'STOC_OK',
      internal_code: code, status: 'new', notes: 'Ring twice', external_reference: 'ERP-77', on_hold: false, hold_reason: null, shipments: [],
    });
    expectApiTime(order.created_at);
    expect(order.updated_at).to.equal(order.created_at);
    expect(order.items.map((i: { id: number }) => ({ ...i, id: 0 }))).to.deep.equal([
      { id: 0, article_id: a.id, article_code: a.code, um3pl: 'BUC', quantity_um3pl: 3, delivered_quantity_um3pl: 0, lot: null },
      { id: 0, article_id: kg.id, article_code: kg.code, um3pl: 'KG', quantity_um3pl: 2.5, delivered_quantity_um3pl: 0, lot: null },
    ]);
    expectId(order.items[0].id);
    expect(order.items[0].id).to.not.equal(order.items[1].id);
    expect(order.status_history).to.have.length(1);
    expect(order.status_history[0]).to.deep.equal({ status: 'new', at: order.status_history[0].at, user: { id: operator.id, name: `User ${operator.email}`, email: operator.email } });
    expect(order.status_history[0].at).to.match(TIME);

    const row = await h.db('sales_orders').where('id', order.id).first();
    expect(row).to.include({ company_id: world.client.id, partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], stock_type: 'STOC_OK', internal_code: code, status: 'new' });
    const lines = await h.db('sales_order_items').where('sales_order_id', order.id).orderBy('id');
    expect(lines.map((l) => [l.article_id, l.um3pl, Number(l.quantity)])).to.deep.equal([[a.id, 'BUC', 3000], [kg.id, 'KG', 2500]]);
    const history = await h.db('sales_order_status_history').where('sales_order_id', order.id);
    expect(history.map((r) => [r.status, r.user_id])).to.deep.equal([['new', operator.id]]);

    expect(await eventsOf(h.db, world.client.id, 'sales_order.created', order.id)).to.deep.equal([order]);
    expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 3, available: 0, backordered: 3 });
    expect(await levels(world, kg.id)).to.deep.equal({ quantity: 0, reserved: 2.5, available: 0, backordered: 2.5 });
    expect(await movements(h.db, { article_id: a.id })).to.deep.equal([]);
  });

  it('When stock_type is STOC_DEFECT, Then the order keeps it and reserves the defect stock, not the sellable', async () => {
    const a = await freshArticle(world, world.client.id);
    const res = await post(orderBody(world, [buc(a, 4)], { stock_type: 'STOC_DEFECT', source_warehouse_id: world.warehouses[1] })).expect(201);
    expect(res.body.data).to.include({ stock_type: 'STOC_DEFECT', source_warehouse_id: world.warehouses[1] });
    expect(await levels(world, a.id, world.warehouses[1], 'STOC_DEFECT')).to.deep.equal({ quantity: 0, reserved: 4, available: 0, backordered: 4 });
    expect(await levels(world, a.id, world.warehouses[1], 'STOC_OK')).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    expect(await levels(world, a.id, world.warehouses[0], 'STOC_DEFECT')).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
  });

  it('When scoped to the provider, Then the client follows from the customer and the event is recorded for that client', async () => {
    const b = world.articles.otherClient;
    const res = await post(orderBody(world, [{ article_id: b.id, um3pl: 'BUC', quantity_um3pl: 2 }], { partner_id: world.partners.otherClientCustomer }), 'providerAdmin', world.provider.id).expect(201);
    expect(res.body.data).to.include({ client_3pl_id: world.otherClient.id, partner_id: world.partners.otherClientCustomer, status: 'new' });
    expect(res.body.data.status_history[0].user.id).to.equal(world.users.providerAdmin.id);
    expect(await eventsOf(h.db, world.otherClient.id, 'sales_order.created', res.body.data.id)).to.deep.equal([res.body.data]);
    expect(await eventsOf(h.db, world.client.id, 'sales_order.created', res.body.data.id)).to.deep.equal([]);
  });

  /** Posts `body`, expects 422 with exactly `errors` (and `message` when given), and that nothing of the client changed. */
  async function refused(body: Record<string, unknown>, errors: Record<string, string[]>, message?: string, actor: Actor = 'operator', company?: number): Promise<void> {
    const code = body.internal_code as string;
    const before = await outboundState(h.db, world.client.id);
    const res = await post(body, actor, company).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    if (message !== undefined) expect(res.body.message).to.equal(message);
    expect(await ordersCoded(code)).to.deep.equal([]);
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
  }

  describe('partner_id', () => {
    const cases: Array<[string, () => number, Actor, () => number | undefined]> = [
      ['a supplier partner of the client', () => world.partners.supplier, 'operator', () => undefined],
      ["another client's customer, scoped to the client", () => world.partners.otherClientCustomer, 'operator', () => undefined],
      ["another client's supplier, scoped to the provider", () => world.partners.otherClientSupplier, 'providerAdmin', () => world.provider.id],
      ["another tenant's customer, scoped to the client", () => other.partners.client, 'operator', () => undefined],
      ["another tenant's customer, scoped to the provider", () => other.partners.client, 'providerAdmin', () => world.provider.id],
      ['an unknown partner', () => 99_999_999, 'operator', () => undefined],
    ];
    for (const [name, partner, actor, company] of cases) {
      it(`When partner_id is ${name}, Then it answers 422 on partner_id and creates nothing`, async () => {
        await refused(orderBody(world, [buc(article, 1)], { partner_id: partner() }), { partner_id: [NOT_CLIENT_PARTNER] }, NOT_CLIENT_PARTNER, actor, company());
      });
    }
  });

  describe('source_warehouse_id and stock_type', () => {
    it("When source_warehouse_id is another provider's warehouse or unknown, Then it answers 422 on source_warehouse_id", async () => {
      for (const warehouse of [other.warehouses[0], 99_999_999]) {
        await refused(orderBody(world, [buc(article, 1)], { source_warehouse_id: warehouse }), { source_warehouse_id: [WAREHOUSE] }, WAREHOUSE);
      }
    });

    it('When stock_type is not one of the three, Then it answers 422 on stock_type', async () => {
      for (const stockType of ['STOC_BAD', 'stoc_ok', '']) {
        await refused(orderBody(world, [buc(article, 1)], { stock_type: stockType }), { stock_type: ['The stock_type field must be one of: STOC_OK, STOC_DEFECT, STOC_QUARANTINE.'] }, INVALID);
      }
    });
  });

  describe('items', () => {
    it('When a BUC line is fractional (1.5 or "2,5"), Then it answers 422 on items.N.quantity_um3pl', async () => {
      await refused(orderBody(world, [buc(article, 1.5)]), { 'items.0.quantity_um3pl': [WHOLE_UNIT] }, INVALID);
      await refused(orderBody(world, [kgLine(1), buc(article, '2,5')]), { 'items.1.quantity_um3pl': [WHOLE_UNIT] });
    });

    it("When a line names another client's or another tenant's article, Then it answers 422 on items.N.article_id", async () => {
      const sibling = world.articles.otherClient.id;
      const stranger = other.articles.client.id;
      await refused(orderBody(world, [{ article_id: sibling, um3pl: 'BUC', quantity_um3pl: 1 }]), { 'items.0.article_id': [`Article ${sibling} is not an article of this client.`] });
      await refused(orderBody(world, [buc(article, 1), { article_id: stranger, um3pl: 'BUC', quantity_um3pl: 1 }]), { 'items.1.article_id': [`Article ${stranger} is not an article of this client.`] });
    });

    it("When scoped to the provider the line's article belongs to another client than the customer, Then it answers 422 on items.0.article_id", async () => {
      await refused(
        orderBody(world, [buc(article, 1)], { partner_id: world.partners.otherClientCustomer }),
        { 'items.0.article_id': [`Article ${article.id} is not an article of this client.`] }, INVALID, 'providerAdmin', world.provider.id,
      );
    });

    it("When a line's um3pl is not its article's unit, Then it answers 422 on items.N.um3pl", async () => {
      await refused(orderBody(world, [{ ...buc(article, 1), um3pl: 'KG' }]), { 'items.0.um3pl': ["The unit must be the article's unit, BUC."] });
      await refused(orderBody(world, [buc(article, 1), { ...kgLine(1), um3pl: 'BUC' }]), { 'items.1.um3pl': ["The unit must be the article's unit, KG."] });
    });

    it('When several lines are wrong, Then every problem is reported at once', async () => {
      await refused(orderBody(world, [buc(article, 0), kgLine('1,2345'), buc(article, 2)]), {
        'items.0.quantity_um3pl': ['The quantity must be greater than 0.'],
        'items.1.quantity_um3pl': ['The quantity may have at most 3 decimals.'],
      });
    });

    it('When a quantity is of a type it cannot be (null, true, an object, a JSON number beyond a double) or a string over 32 characters, Then 422 says what to send, or the length limit', async () => {
      const lines = [kgLine(null as never), kgLine(true as never), kgLine({} as never), kgLine(-1), kgLine('1.500000000000000000000000000000000'), kgLine('1.50000000000000000000000000000')];
      // 1e400 is JSON a client may send: JSON.parse reads it as Infinity, which JSON.stringify cannot write.
      const body = JSON.stringify(orderBody(world, lines)).replace('"quantity_um3pl":-1', '"quantity_um3pl":1e400');
      const before = await outboundState(h.db, world.client.id);
      const res = await world.as('operator').post('/api/sales-orders').set('Content-Type', 'application/json').send(body).expect(422);
      const TYPE = 'The quantity must be a number, or a string such as "1,5".';
      expect(res.body).to.deep.equal({
        message: INVALID,
        errors: {
          'items.0.quantity_um3pl': [TYPE],
          'items.1.quantity_um3pl': [TYPE],
          'items.2.quantity_um3pl': [TYPE],
          'items.3.quantity_um3pl': [TYPE],
          'items.4.quantity_um3pl': ['The quantity must not be longer than 32 characters.'],
        },
      });
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    });

    it('When items is empty, Then it answers 422 on items', async () => {
      await refused(orderBody(world, []), { items: ['The items field must have at least 1 item.'] }, INVALID);
    });
  });

  describe('internal_code', () => {
    it('When the code is taken by another sales order of the client, Then it answers 422 on internal_code; another client may use it', async () => {
      const code = unique('SO-DUP-');
      await post(orderBody(world, [buc(article, 1)], { internal_code: code })).expect(201);
      const before = await outboundState(h.db, world.client.id);
      const res = await post(orderBody(world, [buc(article, 5)], { internal_code: code })).expect(422);
      expect(res.body).to.deep.equal({ message: CODE_TAKEN, errors: { internal_code: [CODE_TAKEN] } });
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      expect(await ordersCoded(code)).to.have.length(1);

      const elsewhere = { partner_id: world.partners.otherClientCustomer, internal_code: code };
      const res2 = await post(orderBody(world, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }], elsewhere), 'providerAdmin', world.otherClient.id).expect(201);
      expect(res2.body.data).to.include({ client_3pl_id: world.otherClient.id, internal_code: code });
    });
  });

  describe('access', () => {
    it('When a viewer posts, Then it answers 403 and creates nothing; without X-Company-Id it answers 400', async () => {
      const body = orderBody(world, [buc(article, 1)]);
      await post(body, 'viewer').expect(403);
      const res = await post(body, 'operator', null).expect(400);
      expect(res.body).to.deep.equal({ message: 'The X-Company-Id header is required.' });
      expect(await ordersCoded(body.internal_code as string)).to.deep.equal([]);
    });
  });

  describe('Idempotency-Key', () => {
    it('When the same key and body are sent again, Then the 201 is replayed, one order exists and the reservation is not doubled', async () => {
      const a = await freshArticle(world, world.client.id);
      const key = unique('idem-');
      const body = orderBody(world, [buc(a, 7)]);
      const first = await world.as('operator').post('/api/sales-orders').set('Idempotency-Key', key).send(body).expect(201);
      expect(first.headers['idempotent-replayed']).to.equal(undefined);
      const again = await world.as('operator').post('/api/sales-orders').set('Idempotency-Key', key).send(body).expect(201);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect(await ordersCoded(body.internal_code as string)).to.have.length(1);
      expect(await eventsOf(h.db, world.client.id, 'sales_order.created', first.body.data.id)).to.have.length(1);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 7, available: 0, backordered: 7 });

      const mismatch = await world.as('operator').post('/api/sales-orders').set('Idempotency-Key', key).send({ ...body, notes: 'changed' }).expect(422);
      expect(mismatch.body).to.deep.equal({ message: INVALID, errors: { 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] } });
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 7, available: 0, backordered: 7 });
    });
  });
});
