/** POST /api/purchase-orders: the order, its lines under the quantity and unit rules, its supplier and client, and its event. */
import { expect } from 'chai';
import { readDocument } from '../../src/platform/openapi/document.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { kgArticle, type TestArticle } from '../fixtures/articles.js';
import { eventsOf, inboundState, storedLines, expectApiTime, expectId } from '../fixtures/probes.js';
import type { LineInput } from '../fixtures/purchase-orders.js';

const ORDER_FIELDS = ['id', 'client_3pl_id', 'partner_id', 'internal_code', 'status', 'notes', 'external_reference', 'items', 'created_at', 'updated_at'];
const ITEM_FIELDS = ['id', 'article_id', 'article_code', 'um3pl', 'quantity_um3pl', 'received_quantity_um3pl'];
const WHOLE_UNIT = 'The quantity must be a whole number: unit BUC is counted in whole units.';

describe('POST /api/purchase-orders', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let kg: TestArticle;
  let wholeKg: TestArticle;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    kg = await kgArticle(world, world.client.id);
    wholeKg = await kgArticle(world, world.client.id, true);
  });

  const buc = (quantity: number | string = 10): LineInput => ({ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: quantity });
  const kgLine = (quantity: number | string): LineInput => ({ article_id: kg.id, um3pl: 'KG', quantity_um3pl: quantity });
  const post = (body: Record<string, unknown>, actor: Parameters<World['as']>[0] = 'operator', company?: number | null) =>
    world.as(actor, company).post('/api/purchase-orders').send({ partner_id: world.partners.supplier, internal_code: unique('PO-'), ...body });
  const ordersCoded = (code: string) => h.db('purchase_orders').where('internal_code', code);

  it('When a client operator orders a BUC and a KG line, Then it answers 201 with the open order, an id per line and nothing received', async () => {
    const code = unique('PO-');
    const res = await post({ internal_code: code, notes: 'Ramp 3', external_reference: 'ERP-1', items: [buc(10), kgLine('12,5')] }).expect(201);
    const order = res.body.data;
    expect(order).to.have.all.keys(ORDER_FIELDS);
    expect(order).to.deep.include({ client_3pl_id: world.client.id, partner_id: world.partners.supplier, internal_code: code, status: 'open', notes: 'Ramp 3', external_reference: 'ERP-1' });
    expectApiTime(order.created_at);
    expect(order.updated_at).to.equal(order.created_at);
    expect(order.items).to.have.length(2);
    for (const item of order.items) expect(item).to.have.all.keys(ITEM_FIELDS);
    expect(order.items.map((i: { id: number }) => ({ ...i, id: 0 }))).to.deep.equal([
      { id: 0, article_id: world.articles.client.id, article_code: world.articles.client.code, um3pl: 'BUC', quantity_um3pl: 10, received_quantity_um3pl: 0 },
      { id: 0, article_id: kg.id, article_code: kg.code, um3pl: 'KG', quantity_um3pl: 12.5, received_quantity_um3pl: 0 },
    ]);
    const [first, second] = order.items as Array<{ id: number }>;
    expectId(first!.id);
    expect(first!.id).to.not.equal(second!.id);

    expect(await storedLines(h.db, order.id)).to.deep.equal([
      { id: first!.id, article_id: world.articles.client.id, um3pl: 'BUC', quantity: 10000, received_quantity: 0 },
      { id: second!.id, article_id: kg.id, um3pl: 'KG', quantity: 12500, received_quantity: 0 },
    ]);
    const row = await h.db('purchase_orders').where('id', order.id).first();
    expect(row).to.include({ company_id: world.client.id, partner_id: world.partners.supplier, internal_code: code, status: 'open' });
    expect(await eventsOf(h.db, world.client.id, 'purchase_order.created', order.id)).to.deep.equal([order]);
    expect((await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
  });

  it('When quantities have up to 3 decimals as numbers or strings, Then they are stored as exact thousandths and shown back', async () => {
    const res = await post({ items: [kgLine('0,001'), kgLine(1.005), kgLine('2.675'), kgLine(' 7 '), kgLine(1_000_000_000)] }).expect(201);
    expect(res.body.data.items.map((i: { quantity_um3pl: number }) => i.quantity_um3pl)).to.deep.equal([0.001, 1.005, 2.675, 7, 1_000_000_000]);
    expect((await storedLines(h.db, res.body.data.id)).map((l) => l.quantity)).to.deep.equal([1, 1005, 2675, 7000, 1_000_000_000_000]);
  });

  it('When a string has trailing zeros beyond 3 decimals, Then it is read as the same JSON number is (zeros are no precision)', async () => {
    const res = await post({ items: [kgLine('1.5000'), kgLine(1.5), kgLine('12,50000000'), buc('2.0000')] }).expect(201);
    expect(res.body.data.items.map((i: { quantity_um3pl: number }) => i.quantity_um3pl)).to.deep.equal([1.5, 1.5, 12.5, 2]);
    expect((await storedLines(h.db, res.body.data.id)).map((l) => l.quantity)).to.deep.equal([1500, 1500, 12500, 2000]);
  });

  it('When a JSON number has more digits than a double holds, Then it is read rounded, as the document says; the same digits as a string are checked exactly', async () => {
    const raw = (quantities: string[]) => {
      const body = { partner_id: world.partners.supplier, internal_code: unique('PO-'), items: quantities.map((_, i) => buc(-(i + 1))) };
      let text = JSON.stringify(body);
      quantities.forEach((q, i) => { text = text.replace(`"quantity_um3pl":${-(i + 1)}`, `"quantity_um3pl":${q}`); });
      return world.as('operator').post('/api/purchase-orders').set('Content-Type', 'application/json').send(text);
    };
    const rounded = await raw(['2.9999999999999999']).expect(201);
    expect(rounded.body.data.items[0].quantity_um3pl).to.equal(3);
    const refused = await raw(['"2.9999999999999999"', '1e-400']).expect(422);
    expect(refused.body.errors).to.deep.equal({
      'items.0.quantity_um3pl': ['The quantity may have at most 3 decimals.'],
      'items.1.quantity_um3pl': ['The quantity must be greater than 0.'],
    });
    const schemas = readDocument().components.schemas as Record<string, { description: string }>;
    expect(schemas.QuantityInput!.description).to.match(/read as an\s+IEEE 754 double/).and.match(/send a string/);
  });

  it('When scoped to the provider, Then the client follows from the supplier and the event is recorded for that client', async () => {
    const res = await post({ partner_id: world.partners.otherClientSupplier, items: [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 3 }] }, 'providerAdmin').expect(201);
    expect(res.body.data).to.include({ client_3pl_id: world.otherClient.id, partner_id: world.partners.otherClientSupplier, status: 'open' });
    expect((await h.db('purchase_orders').where('id', res.body.data.id).first()).company_id).to.equal(world.otherClient.id);
    expect(await eventsOf(h.db, world.otherClient.id, 'purchase_order.created', res.body.data.id)).to.deep.equal([res.body.data]);
    expect(await eventsOf(h.db, world.client.id, 'purchase_order.created', res.body.data.id)).to.deep.equal([]);
  });

  describe('partner_id', () => {
    const NOT_SUPPLIER = 'The partner_id must be a supplier partner of a client in scope.';
    const cases: Array<[string, () => number, Parameters<World['as']>[0]]> = [
      ["a client partner (a customer) of the client", () => world.partners.client, 'operator'],
      ["another client's supplier, scoped to the client", () => world.partners.otherClientSupplier, 'operator'],
      ["another provider's supplier, scoped to the provider", () => other.partners.supplier, 'providerAdmin'],
      ['an unknown partner', () => 99_999_999, 'operator'],
    ];
    for (const [name, partner, actor] of cases) {
      it(`When partner_id is ${name}, Then it answers 422 on partner_id and creates nothing`, async () => {
        const code = unique('PO-');
        const res = await post({ partner_id: partner(), internal_code: code, items: [buc()] }, actor).expect(422);
        expect(res.body).to.deep.equal({ message: NOT_SUPPLIER, errors: { partner_id: [NOT_SUPPLIER] } });
        expect(await ordersCoded(code)).to.deep.equal([]);
      });
    }
  });

  describe('items', () => {
    const rejects = async (items: LineInput[], errors: Record<string, string[]>, actor: Parameters<World['as']>[0] = 'operator'): Promise<void> => {
      const code = unique('PO-');
      const before = await inboundState(h.db, world.client.id);
      const res = await post({ internal_code: code, items }, actor).expect(422);
      expect(res.body.errors).to.deep.equal(errors);
      expect(await ordersCoded(code)).to.deep.equal([]);
      expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
    };

    it("When a line names another client's or another provider's article, Then it answers 422 on items.N.article_id", async () => {
      const sibling = world.articles.otherClient.id;
      const stranger = other.articles.client.id;
      await rejects([{ ...buc(), article_id: sibling }], { 'items.0.article_id': [`Article ${sibling} is not an article of this client.`] });
      await rejects([buc(), { ...buc(), article_id: stranger }], { 'items.1.article_id': [`Article ${stranger} is not an article of this client.`] }, 'providerAdmin');
    });

    it("When a line's um3pl is not its article's unit, Then it answers 422 on items.N.um3pl naming the unit", async () => {
      await rejects([{ ...buc(), um3pl: 'KG' }], { 'items.0.um3pl': ["The unit must be the article's unit, BUC."] });
      await rejects([buc(), { ...kgLine(1), um3pl: 'BUC' }], { 'items.1.um3pl': ["The unit must be the article's unit, KG."] });
    });

    const quantityCases: Array<[string, number | string, string]> = [
      ['"1,2345" (four decimals)', '1,2345', 'The quantity may have at most 3 decimals.'],
      ['0.0001 (a number with four decimals)', 0.0001, 'The quantity may have at most 3 decimals.'],
      ['0', 0, 'The quantity must be greater than 0.'],
      ['"0,000"', '0,000', 'The quantity must be greater than 0.'],
      ['-1', -1, 'The quantity must be greater than 0.'],
      ['"-2,5"', '-2,5', 'The quantity must be greater than 0.'],
      ['"1.2.3"', '1.2.3', 'The quantity must be a number with at most 3 decimals, such as 12, 1.5 or "1,5".'],
      ['an empty string', '', 'The quantity must not be empty.'],
      ['above the maximum', 1_000_000_001, 'The quantity must not be greater than 1000000000.'],
    ];
    for (const [name, quantity, message] of quantityCases) {
      it(`When a KG quantity is ${name}, Then it answers 422 on items.N.quantity_um3pl`, async () => {
        await rejects([buc(), kgLine(quantity)], { 'items.1.quantity_um3pl': [message] });
      });
    }

    it('When a BUC (whole-number unit) line has 1.5 or "2,5", Then it answers 422 with the unit message', async () => {
      await rejects([buc(1.5)], { 'items.0.quantity_um3pl': [WHOLE_UNIT] });
      await rejects([kgLine(1), buc('2,5')], { 'items.1.quantity_um3pl': [WHOLE_UNIT] });
    });

    it('When a whole-only article in KG gets 1.5, Then it answers 422 with the article message; 2 is accepted', async () => {
      const line = (q: number | string): LineInput => ({ article_id: wholeKg.id, um3pl: 'KG', quantity_um3pl: q });
      await rejects([line(1.5)], { 'items.0.quantity_um3pl': [`The quantity must be a whole number: article ${wholeKg.code} takes whole quantities only.`] });
      const res = await post({ items: [line('2,000')] }).expect(201);
      expect(res.body.data.items[0]).to.include({ article_id: wholeKg.id, quantity_um3pl: 2 });
    });

    it('When several lines are bad in different ways, Then every problem is reported at once and nothing is created', async () => {
      const sibling = world.articles.otherClient.id;
      await rejects([{ ...buc(), article_id: sibling }, buc(), { ...buc(), um3pl: 'KG' }, buc(0.5), kgLine('1,2345'), kgLine(-3)], {
        'items.0.article_id': [`Article ${sibling} is not an article of this client.`],
        'items.2.um3pl': ["The unit must be the article's unit, BUC."],
        'items.3.quantity_um3pl': [WHOLE_UNIT],
        'items.4.quantity_um3pl': ['The quantity may have at most 3 decimals.'],
        'items.5.quantity_um3pl': ['The quantity must be greater than 0.'],
      });
    });

    it('When items is missing or empty, Then it answers 422 on items', async () => {
      for (const items of [undefined, []]) {
        const code = unique('PO-');
        const res = await post({ internal_code: code, items }).expect(422);
        expect(Object.keys(res.body.errors)).to.deep.equal(['items']);
        expect(await ordersCoded(code)).to.deep.equal([]);
      }
    });
  });

  describe('internal_code', () => {
    it('When the code is repeated for the same client, Then it answers 422 on internal_code; the other client may use it', async () => {
      const code = unique('PO-DUP-');
      const first = await post({ internal_code: code, items: [buc()] }).expect(201);
      const res = await post({ internal_code: code, items: [buc(2)] }, 'providerAdmin').expect(422);
      expect(res.body.errors).to.deep.equal({ internal_code: ['The internal_code has already been taken for this client.'] });
      expect((await ordersCoded(code)).map((r: { id: number }) => r.id)).to.deep.equal([first.body.data.id]);
      const sibling = await post({ internal_code: code, partner_id: world.partners.otherClientSupplier, items: [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }] }, 'providerAdmin').expect(201);
      expect(sibling.body.data).to.include({ internal_code: code, client_3pl_id: world.otherClient.id });
    });

    it('When the code differs only in letter case, Then it is another code', async () => {
      const code = unique('po-case-');
      await post({ internal_code: code, items: [buc()] }).expect(201);
      const res = await post({ internal_code: code.toUpperCase(), items: [buc()] }).expect(201);
      expect(res.body.data.internal_code).to.equal(code.toUpperCase());
    });
  });

  describe('access', () => {
    it('When a viewer creates, Then it answers 403 and creates nothing', async () => {
      const code = unique('PO-');
      const res = await post({ internal_code: code, items: [buc()] }, 'viewer').expect(403);
      expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
      expect(await ordersCoded(code)).to.deep.equal([]);
    });

    it('When X-Company-Id is missing, Then it answers 400 and creates nothing', async () => {
      const code = unique('PO-');
      await post({ internal_code: code, items: [buc()] }, 'operator', null).expect(400, { message: 'The X-Company-Id header is required.' });
      expect(await ordersCoded(code)).to.deep.equal([]);
    });
  });
});
