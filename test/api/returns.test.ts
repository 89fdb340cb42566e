/**
 * POST /api/returns without a sales order: stock rises per line in the return's warehouse and
 * stock type (STOC_OK unless the line says otherwise), with a `return` movement per line,
 * `stock.changed` per line and `return.created`, all in one transaction; the partner, warehouse,
 * lines and internal_code are checked first and a refused return writes nothing.
 */
import { expect } from 'chai';
import { unchecked } from '../helpers/api.js';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { withFailingInsert } from '../fixtures/faults.js';
import { balances, eventsOf as eventsOfClient, ledgerMismatches, movements, returnsState, API_TIME as TIME } from '../fixtures/probes.js';
import { makeArticle } from '../fixtures/articles.js';
import { createSalesOrder } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';

const NOT_CLIENT_PARTNER = 'The partner_id must be a client partner of a client in scope.';
const NOT_WAREHOUSE = 'The warehouse_id must be a warehouse of the provider.';
const CODE_TAKEN = 'The internal_code has already been taken for this client.';

type Line = { article_id: number; um3pl: string; quantity_um3pl: number | string; stock_type?: string };

describe('POST /api/returns (without a sales order)', () => {
  let h: Harness;
  let world: World;
  let stranger: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    stranger = await createWorld(h.app, h.db);
  });

  /** A fresh article of `clientId` (so its stock is this test's alone). */
  const freshArticle = (um3pl = 'BUC', clientId = world.client.id, integerOnly = false) => makeArticle(world, clientId, { um3pl, integerOnly, prefix: `RET-${um3pl}-` });

  const body = (items: Line[], extra: Record<string, unknown> = {}) => ({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], items, ...extra });

  /** The GET /api/stock row of an article in a warehouse and stock type, or undefined. */
  async function stockRow(articleId: number, stockType: string, warehouseId = world.warehouses[0]!) {
    const res = await world.as('viewer').get(`/api/stock?article_id=${articleId}&stock_type=${stockType}&warehouse_id=${warehouseId}`).expect(200);
    expect(res.body.data.length).to.be.at.most(1);
    return res.body.data[0] as { quantity: number; reserved: number; available: number; stock_type: string } | undefined;
  }

  /** Everything a return may write for one client. */
  const clientState = (clientId = world.client.id) => returnsState(h.db, clientId);

  const eventsOf = (type: string, clientId = world.client.id): Promise<Array<Record<string, unknown>>> => eventsOfClient(h.db, clientId, type);

  describe('stock, movements and events', () => {
    it('When a return has a damaged line and a default line, Then STOC_DEFECT and STOC_OK rise, with one return movement per line and the events', async () => {
      const article = await freshArticle();
      const before = await clientState();
      const res = await world
        .as('operator')
        .post('/api/returns')
        .send(body([{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT' }, { article_id: article.id, um3pl: 'buc', quantity_um3pl: '3' }], { internal_code: unique('RET-'), reason: 'Broken seal' }))
        .expect(201);
      const ret = res.body.data;
      expect(Object.keys(ret).sort()).to.deep.equal(['client_3pl_id', 'created_at', 'id', 'internal_code', 'items', 'partner_id', 'reason', 'sales_order_id', 'updated_at', 'warehouse_id']);
      expect(ret).to.deep.include({ client_3pl_id: world.client.id, partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: null, reason: 'Broken seal' });
      expect(ret.internal_code).to.match(/^RET-/);
      expect(ret.created_at).to.match(TIME);
      expect(ret.updated_at).to.equal(ret.created_at);
      expect(ret.items.map(({ id: _id, ...line }: { id: number }) => line)).to.deep.equal([
        { article_id: article.id, article_code: article.code, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT', lot: null, expiry_date: null },
        { article_id: article.id, article_code: article.code, um3pl: 'BUC', quantity_um3pl: 3, stock_type: 'STOC_OK', lot: null, expiry_date: null },
      ]);
      expect(ret.items[1].id).to.be.greaterThan(ret.items[0].id);

      expect(await stockRow(article.id, 'STOC_OK')).to.deep.include({ quantity: 3, reserved: 0, available: 3 });
      expect(await stockRow(article.id, 'STOC_DEFECT')).to.deep.include({ quantity: 2, reserved: 0, available: 2 });
      expect(await stockRow(article.id, 'STOC_QUARANTINE')).to.equal(undefined);
      expect(await stockRow(article.id, 'STOC_OK', world.warehouses[1])).to.equal(undefined);

      expect(await movements(h.db, { article_id: article.id })).to.deep.equal(
        [
          ['STOC_DEFECT', 2000],
          ['STOC_OK', 3000],
        ].map(([stock_type, delta]) => ({
          company_id: world.client.id,
          warehouse_id: world.warehouses[0],
          article_id: article.id,
          stock_type,
          delta,
          cause: 'return',
          document_kind: 'return',
          document_id: ret.id,
          user_id: world.users.operator.id,
        })),
      );
      const stored = await h.db('return_items').where('return_id', ret.id).orderBy('id');
      expect(stored.map((i) => [i.article_id, i.um3pl, Number(i.quantity), i.stock_type])).to.deep.equal([
        [article.id, 'BUC', 2000, 'STOC_DEFECT'],
        [article.id, 'BUC', 3000, 'STOC_OK'],
      ]);

      const created = (await eventsOf('return.created')).filter((e) => e.id === ret.id);
      expect(created).to.deep.equal([ret]);
      const changed = (await eventsOf('stock.changed')).filter((e) => e.article_id === article.id);
      expect(changed.map((e) => [e.warehouse_id, e.stock_type, e.quantity, e.client_3pl_id])).to.deep.equal([
        [world.warehouses[0], 'STOC_DEFECT', 2, world.client.id],
        [world.warehouses[0], 'STOC_OK', 3, world.client.id],
      ]);
      const after = await clientState();
      expect([after.returns - before.returns, after.lines - before.lines, after.movements - before.movements, after.events - before.events]).to.deep.equal([1, 2, 2, 3]);

      const read = await world.as('viewer').get(`/api/returns/${ret.id}`).expect(200);
      expect(read.body).to.deep.equal(res.body);
    });

    it('When a return adds to stock already on hand, in KG with a decimal comma, Then the balance grows by exactly that much', async () => {
      const article = await freshArticle('KG');
      const agent = world.as('operator');
      await receiveStock(world, article, 5, world.warehouses[1], 'KG');
      const res = await agent
        .post('/api/returns')
        .send(body([{ article_id: article.id, um3pl: 'KG', quantity_um3pl: '1,125' }, { article_id: article.id, um3pl: 'KG', quantity_um3pl: 0.2 }], { warehouse_id: world.warehouses[1] }))
        .expect(201);
      expect(res.body.data).to.deep.include({ warehouse_id: world.warehouses[1], internal_code: null, reason: null, sales_order_id: null });
      expect(res.body.data.items.map((i: { quantity_um3pl: number }) => i.quantity_um3pl)).to.deep.equal([1.125, 0.2]);
      expect(await stockRow(article.id, 'STOC_OK', world.warehouses[1])).to.deep.include({ quantity: 6.325 });
      const changed = (await eventsOf('stock.changed')).filter((e) => e.article_id === article.id).map((e) => e.quantity);
      // Two lines of one balance: one stock.changed, the row after both.
      expect(changed).to.deep.equal([5, 6.325]);
    });

    it('When a provider user registers a return of another client, Then the return and its stock belong to the partner\'s client', async () => {
      const article = await freshArticle('BUC', world.otherClient.id);
      const res = await world
        .as('providerAdmin')
        .post('/api/returns')
        .send({ partner_id: world.partners.otherClientCustomer, warehouse_id: world.warehouses[0], items: [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 4, stock_type: 'STOC_QUARANTINE' }] })
        .expect(201);
      expect(res.body.data).to.deep.include({ client_3pl_id: world.otherClient.id, partner_id: world.partners.otherClientCustomer });
      const stored = await balances(h.db, { article_id: article.id });
      expect(stored.map((b) => [b.company_id, b.stock_type, b.quantity])).to.deep.equal([[world.otherClient.id, 'STOC_QUARANTINE', 4000]]);
      expect((await eventsOf('return.created', world.otherClient.id)).map((e) => e.id)).to.include(res.body.data.id);
      expect((await eventsOf('return.created')).map((e) => e.id)).to.not.include(res.body.data.id);
    });

    it('When the return.created event cannot be recorded, Then it answers 500 and no return, movement, balance or event remains', async () => {
      const article = await freshArticle();
      const before = await clientState();
      // A 500 is outside the document on purpose, so this one request is unchecked.
      const res = await withFailingInsert(h.db, 'outbox_events', "NEW.type = 'return.created'", () =>
        unchecked(h.app, { token: world.users.operator.token, company: world.client.id })
          .post('/api/returns')
          .send(body([{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2 }, { article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1, stock_type: 'STOC_DEFECT' }], { internal_code: 'RET-FAULT' })),
      );
      expect([res.status, res.body]).to.deep.equal([500, { message: 'Server Error.' }]);
      expect(await clientState()).to.deep.equal(before);
      expect(await balances(h.db, { article_id: article.id })).to.deep.equal([]);
      expect(await ledgerMismatches(h.db)).to.deep.equal([]);

      // Nothing of the failed return holds its internal_code.
      await world.as('operator').post('/api/returns').send(body([{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2 }], { internal_code: 'RET-FAULT' })).expect(201);
      expect(await stockRow(article.id, 'STOC_OK')).to.deep.include({ quantity: 2 });
    });
  });

  describe('refusals', () => {
    it('When a viewer registers a return, Then 403 and nothing is written', async () => {
      const before = await clientState();
      const res = await world.as('viewer').post('/api/returns').send(body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }])).expect(403);
      expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
      expect(await clientState()).to.deep.equal(before);
    });

    it('When X-Company-Id is missing, Then 400', async () => {
      const res = await world.as('operator', null).post('/api/returns').send(body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }])).expect(400);
      expect(res.body).to.deep.equal({ message: 'The X-Company-Id header is required.' });
    });

    const cases: Array<[string, () => Promise<{ send: object; errors: Record<string, string[]> }>]> = [
      ['a supplier partner', async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { partner_id: world.partners.supplier }), errors: { partner_id: [NOT_CLIENT_PARTNER] } })],
      ['a customer of another client', async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { partner_id: world.partners.otherClientCustomer }), errors: { partner_id: [NOT_CLIENT_PARTNER] } })],
      ["another tenant's customer", async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { partner_id: stranger.partners.client }), errors: { partner_id: [NOT_CLIENT_PARTNER] } })],
      ['an unknown partner', async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { partner_id: 99_999_999 }), errors: { partner_id: [NOT_CLIENT_PARTNER] } })],
      ["another provider's warehouse", async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { warehouse_id: stranger.warehouses[0] }), errors: { warehouse_id: [NOT_WAREHOUSE] } })],
      ['an unknown warehouse', async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { warehouse_id: 99_999_999 }), errors: { warehouse_id: [NOT_WAREHOUSE] } })],
      [
        'a fractional quantity of a BUC article',
        async () => ({
          send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }, { article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: '1,5' }]),
          errors: { 'items.1.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'] },
        }),
      ],
      [
        'a fractional quantity of a whole-number KG article',
        async () => {
          const article = await freshArticle('KG', world.client.id, true);
          return { send: body([{ article_id: article.id, um3pl: 'KG', quantity_um3pl: 0.5 }]), errors: { 'items.0.quantity_um3pl': [`The quantity must be a whole number: article ${article.code} takes whole quantities only.`] } };
        },
      ],
      ['four decimals in KG', async () => {
        const article = await freshArticle('KG');
        return { send: body([{ article_id: article.id, um3pl: 'KG', quantity_um3pl: '1.0005' }]), errors: { 'items.0.quantity_um3pl': ['The quantity may have at most 3 decimals.'] } };
      }],
      ['a quantity of zero', async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: '0' }]), errors: { 'items.0.quantity_um3pl': ['The quantity must be greater than 0.'] } })],
      ["a unit other than the article's", async () => ({ send: body([{ article_id: world.articles.client.id, um3pl: 'KG', quantity_um3pl: 1 }]), errors: { 'items.0.um3pl': ["The unit must be the article's unit, BUC."] } })],
      [
        "another client's article",
        async () => ({
          send: body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }, { article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }]),
          errors: { 'items.1.article_id': [`Article ${world.articles.otherClient.id} is not an article of this client.`] },
        }),
      ],
      ["another tenant's article", async () => ({ send: body([{ article_id: stranger.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]), errors: { 'items.0.article_id': [`Article ${stranger.articles.client.id} is not an article of this client.`] } })],
    ];
    for (const [name, make] of cases) {
      it(`When the return names ${name}, Then 422 on that field and nothing is written`, async () => {
        const { send, errors } = await make();
        const before = await clientState();
        const res = await world.as('operator').post('/api/returns').send(send).expect(422);
        expect(res.body.errors).to.deep.equal(errors);
        // A refused line is reported with the generic message; a refused header field with its own.
        const [field, [message]] = Object.entries(errors)[0]!;
        expect(res.body.message).to.equal(field.startsWith('items.') ? 'The given data was invalid.' : message);
        expect(await clientState()).to.deep.equal(before);
      });
    }

    it("When a provider user sends another client's customer with this client's article, Then 422 on the article", async () => {
      const res = await world
        .as('providerAdmin')
        .post('/api/returns')
        .send(body([{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }], { partner_id: world.partners.otherClientCustomer }))
        .expect(422);
      expect(res.body.errors).to.deep.equal({ 'items.0.article_id': [`Article ${world.articles.client.id} is not an article of this client.`] });
    });

    for (const [name, send, field] of [
      ['no items', { items: [] }, 'items'],
      ['an unknown stock type', { items: [{ article_id: 1, um3pl: 'BUC', quantity_um3pl: 1, stock_type: 'STOC_BROKEN' }] }, 'items.0.stock_type'],
      ['an unknown property', { items: [{ article_id: 1, um3pl: 'BUC', quantity_um3pl: 1 }], client_3pl_id: 5 }, 'client_3pl_id'],
      ['no warehouse', { items: [{ article_id: 1, um3pl: 'BUC', quantity_um3pl: 1 }], warehouse_id: undefined }, 'warehouse_id'],
    ] as const) {
      it(`When the body has ${name}, Then the schema answers 422 on ${field}`, async () => {
        const before = await clientState();
        const res = await world.as('operator').post('/api/returns').send(body([], send)).expect(422);
        expect(Object.keys(res.body.errors)).to.deep.equal([field]);
        expect(await clientState()).to.deep.equal(before);
      });
    }
  });

  describe('internal_code', () => {
    it('When a client repeats an internal_code, Then 422 and nothing is written; another client and a sales order may use it', async () => {
      const code = unique('RET-CODE-');
      const line = [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }];
      await world.as('operator').post('/api/returns').send(body(line, { internal_code: code })).expect(201);
      const before = await clientState();
      const res = await world.as('operator').post('/api/returns').send(body(line, { internal_code: code, reason: 'again' })).expect(422);
      expect(res.body).to.deep.equal({ message: CODE_TAKEN, errors: { internal_code: [CODE_TAKEN] } });
      expect(await clientState()).to.deep.equal(before);

      await world
        .as('otherClientAdmin')
        .post('/api/returns')
        .send({ partner_id: world.partners.otherClientCustomer, warehouse_id: world.warehouses[0], internal_code: code, items: [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 1 }] })
        .expect(201);
      await createSalesOrder(world, line, { internal_code: code });
      expect(await h.db('returns').where({ internal_code: code }).pluck('company_id')).to.have.members([world.client.id, world.otherClient.id]);
    });

    it('When returns have no internal_code, Then any number of them may be registered', async () => {
      const line = [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }];
      const first = await world.as('operator').post('/api/returns').send(body(line)).expect(201);
      const second = await world.as('operator').post('/api/returns').send(body(line, { internal_code: null, sales_order_id: null })).expect(201);
      expect([first.body.data.internal_code, second.body.data.internal_code, second.body.data.sales_order_id]).to.deep.equal([null, null, null]);
      expect(second.body.data.id).to.be.greaterThan(first.body.data.id);
    });
  });
});
