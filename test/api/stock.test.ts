/** GET /api/stock: balances raised by receptions, their filters, paging, scope and exact decimal quantities. */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { makeArticle } from '../fixtures/articles.js';
import { API_TIME as TIME, balances, movements } from '../fixtures/probes.js';
import { createOrderOf } from '../fixtures/purchase-orders.js';
import { receive as receiveItems } from '../fixtures/receptions.js';

const STOCK_FIELDS = ['id', 'client_3pl_id', 'warehouse_id', 'article_id', 'article_code', 'stock_type', 'lot', 'expiry_date', 'quantity', 'reserved', 'available', 'backordered', 'updated_at'];

interface Row {
  id: number;
  client_3pl_id: number;
  warehouse_id: number;
  article_id: number;
  article_code: string;
  stock_type: string;
  quantity: number;
  updated_at: string;
}

describe('GET /api/stock', () => {
  let h: Harness;
  let world: World;
  let stranger: World;
  let kg: { id: number; code: string };

  /** A purchase order of the lines, then one reception per [line index, warehouse, quantity]. */
  async function receive(clientId: number, lines: Array<{ articleId: number; um3pl: string; quantity: number }>, receipts: Array<[number, number, number | string]>): Promise<void> {
    const order = await createOrderOf(world, clientId, lines.map((l) => ({ article_id: l.articleId, um3pl: l.um3pl, quantity_um3pl: l.quantity })));
    for (const [line, warehouse, quantity] of receipts) {
      await receiveItems(world.as('providerAdmin', clientId), order.id, warehouse, [[order.items[line]!.id, quantity]]);
    }
  }

  const rows = (res: { body: { data: Row[] } }): Row[] => res.body.data;
  const keyOf = (r: Row): string => `${r.client_3pl_id}/${r.warehouse_id}/${r.article_id}/${r.stock_type}=${r.quantity}`;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    stranger = await createWorld(h.app, h.db);
    kg = await makeArticle(world, world.client.id, { um3pl: 'KG', prefix: 'KG-' });
    const [wh1, wh2] = world.warehouses as [number, number];
    await receive(
      world.client.id,
      [
        { articleId: world.articles.client.id, um3pl: 'BUC', quantity: 10 },
        { articleId: kg.id, um3pl: 'KG', quantity: 10 },
      ],
      [
        [0, wh1, 6],
        [0, wh2, 3],
        [1, wh1, '7,125'],
      ],
    );
    await receive(world.otherClient.id, [{ articleId: world.articles.otherClient.id, um3pl: 'BUC', quantity: 5 }], [[0, wh1, 5]]);
  });

  it('When the provider lists stock, Then it sees one row per client, warehouse, article and type, with the documented fields', async () => {
    const res = await world.as('providerAdmin').get('/api/stock').expect(200);
    const [wh1, wh2] = world.warehouses as [number, number];
    expect(rows(res).map(keyOf)).to.deep.equal([
      `${world.client.id}/${wh1}/${world.articles.client.id}/STOC_OK=6`,
      `${world.client.id}/${wh2}/${world.articles.client.id}/STOC_OK=3`,
      `${world.client.id}/${wh1}/${kg.id}/STOC_OK=7.125`,
      `${world.otherClient.id}/${wh1}/${world.articles.otherClient.id}/STOC_OK=5`,
    ]);
    for (const row of res.body.data) {
      expect(row).to.have.all.keys(STOCK_FIELDS);
      expect(row.reserved).to.equal(0);
      expect(row.available).to.equal(row.quantity);
      expect(row.backordered).to.equal(0);
      expect(row.updated_at).to.match(TIME);
    }
    expect(rows(res).map((r) => r.article_code)).to.deep.equal([world.articles.client.code, world.articles.client.code, kg.code, world.articles.otherClient.code]);
    const ids = (await balances(h.db, { company_id: [world.client.id, world.otherClient.id] })).map((r) => r.id);
    expect(rows(res).map((r) => r.id)).to.deep.equal(ids);
    expect(res.body.meta).to.include({ total: 4, current_page: 1, per_page: 25, last_page: 1 });
  });

  it('When a decimal quantity was received, Then it shows as 7.125 and is stored as 7125 thousandths', async () => {
    const res = await world.as('admin').get(`/api/stock?article_id=${kg.id}`).expect(200);
    expect(rows(res)).to.have.length(1);
    expect(rows(res)[0]).to.include({ quantity: 7.125, available: 7.125, reserved: 0, backordered: 0, article_code: kg.code });
    const [stored] = await balances(h.db, { article_id: kg.id });
    expect(stored!.quantity).to.equal(7125);
    const moved = await movements(h.db, { article_id: kg.id });
    expect(moved.map((m) => ({ delta: m.delta, cause: m.cause, document_kind: m.document_kind }))).to.deep.equal([{ delta: 7125, cause: 'reception', document_kind: 'reception' }]);
  });

  describe('scope', () => {
    it('When a client lists stock, Then it sees only its own rows', async () => {
      const mine = await world.as('viewer').get('/api/stock').expect(200);
      expect(rows(mine)).to.have.length(3);
      expect(new Set(rows(mine).map((r) => r.client_3pl_id))).to.deep.equal(new Set([world.client.id]));
      const theirs = await world.as('otherClientAdmin').get('/api/stock').expect(200);
      expect(rows(theirs).map((r) => [r.client_3pl_id, r.article_id, r.quantity])).to.deep.equal([[world.otherClient.id, world.articles.otherClient.id, 5]]);
    });

    it('When the provider scopes to one client, Then it sees that client only', async () => {
      const res = await world.as('providerViewer', world.otherClient.id).get('/api/stock').expect(200);
      expect(rows(res).map((r) => r.client_3pl_id)).to.deep.equal([world.otherClient.id]);
    });

    it("When a company of another provider is named, Then it answers 403 and shows nothing", async () => {
      for (const company of [stranger.client.id, stranger.provider.id]) {
        const res = await world.as('providerAdmin', company).get('/api/stock').expect(403);
        expect(res.body).to.deep.equal({ message: `You do not have access to company ${company}.` });
      }
      const res = await world.as('admin', world.otherClient.id).get('/api/stock').expect(403);
      expect(res.body).to.deep.equal({ message: `You do not have access to company ${world.otherClient.id}.` });
    });

    it('When another tenant lists its stock, Then none of these rows appear', async () => {
      const res = await stranger.as('providerAdmin').get('/api/stock').expect(200);
      expect(rows(res)).to.deep.equal([]);
      expect(res.body.meta.total).to.equal(0);
    });
  });

  describe('filters', () => {
    it('When filtered by warehouse_id, Then only rows of that warehouse come', async () => {
      const res = await world.as('providerAdmin').get(`/api/stock?warehouse_id=${world.warehouses[1]}`).expect(200);
      expect(rows(res).map(keyOf)).to.deep.equal([`${world.client.id}/${world.warehouses[1]}/${world.articles.client.id}/STOC_OK=3`]);
      expect(res.body.meta.total).to.equal(1);
    });

    it('When filtered by article_id or article_code, Then only that article comes', async () => {
      const byId = await world.as('providerAdmin').get(`/api/stock?article_id=${world.articles.client.id}`).expect(200);
      expect(rows(byId).map((r) => r.quantity)).to.deep.equal([6, 3]);
      expect(byId.body.meta.total).to.equal(2);
      const byCode = await world.as('providerAdmin').get(`/api/stock?article_code=${encodeURIComponent(world.articles.otherClient.code)}`).expect(200);
      expect(rows(byCode).map((r) => [r.article_id, r.quantity])).to.deep.equal([[world.articles.otherClient.id, 5]]);
      expect(byCode.body.meta.total, 'the count of a code filter (it joins articles)').to.equal(1);
      const both = await world.as('providerAdmin').get(`/api/stock?article_id=${kg.id}&warehouse_id=${world.warehouses[1]}`).expect(200);
      expect(rows(both)).to.deep.equal([]);
      expect(both.body.meta.total).to.equal(0);
    });

    it('When article_id or article_code is a comma list, Then the rows of each listed article come, in id order, each once', async () => {
      const ids = [world.articles.client.id, kg.id, world.articles.client.id];
      const one = async (id: number) => rows(await world.as('providerAdmin').get(`/api/stock?article_id=${id}`).expect(200));
      const expected = [...(await one(world.articles.client.id)), ...(await one(kg.id))].sort((a, b) => a.id - b.id);
      expect(expected.length).to.be.at.least(3);
      const byIds = await world.as('providerAdmin').get(`/api/stock?article_id=${ids.join(',')}`).expect(200);
      expect(rows(byIds)).to.deep.equal(expected);
      expect(byIds.body.meta.total).to.equal(expected.length);
      const codes = [kg.code, world.articles.otherClient.code].map(encodeURIComponent).join(',');
      const byCodes = await world.as('providerAdmin').get(`/api/stock?article_code=${codes}`).expect(200);
      const expectedCodes = [...(await one(kg.id)), ...(await one(world.articles.otherClient.id))].sort((a, b) => a.id - b.id);
      expect(rows(byCodes)).to.deep.equal(expectedCodes);
      expect(byCodes.body.meta.total, 'the count of a code list').to.equal(expectedCodes.length);
      const mineOnly = await world.as('viewer').get(`/api/stock?article_id=${world.articles.client.id},${world.articles.otherClient.id}`).expect(200);
      expect(rows(mineOnly).map((r) => r.article_id), 'a listed article of another client shows nothing').to.deep.equal([world.articles.client.id, world.articles.client.id]);
    });

    it('When a list holds more than 100 values or a value that is not an id, Then it answers 422 on that parameter', async () => {
      const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
      const tooMany = await world.as('providerAdmin').get(`/api/stock?article_id=${many}`).expect(422);
      expect(tooMany.body.errors).to.have.all.keys('article_id');
      expect(tooMany.body.errors.article_id.join(' ')).to.match(/100/);
      const codes = Array.from({ length: 101 }, (_, i) => `C${i}`).join(',');
      const tooManyCodes = await world.as('providerAdmin').get(`/api/stock?article_code=${codes}`).expect(422);
      expect(tooManyCodes.body.errors).to.have.all.keys('article_code');
      const notAnId = await world.as('providerAdmin').get(`/api/stock?article_id=${kg.id},abc`).expect(422);
      expect(notAnId.body.errors).to.deep.equal({ article_id: ['The article_id field must be an integer.'] });
    });

    it('When filtered by stock_type, Then only that type comes', async () => {
      const ok = await world.as('providerAdmin').get('/api/stock?stock_type=STOC_OK').expect(200);
      expect(rows(ok)).to.have.length(4);
      expect(ok.body.meta.total).to.equal(4);
      for (const type of ['STOC_DEFECT', 'STOC_QUARANTINE']) {
        const res = await world.as('providerAdmin').get(`/api/stock?stock_type=${type}`).expect(200);
        expect(rows(res), type).to.deep.equal([]);
      }
      const bad = await world.as('providerAdmin').get('/api/stock?stock_type=STOC_LOST').expect(422);
      expect(bad.body.errors).to.have.all.keys('stock_type');
    });

    it('When filtered by updated_since, Then rows updated at or after it come (inclusive)', async () => {
      const all = rows(await world.as('providerAdmin').get('/api/stock').expect(200));
      const latest = all.reduce((a, b) => (a.updated_at >= b.updated_at ? a : b));
      const since = await world.as('providerAdmin').get(`/api/stock?updated_since=${latest.updated_at}`).expect(200);
      expect(rows(since).map((r) => r.id)).to.include(latest.id);
      expect(rows(since).every((r) => r.updated_at >= latest.updated_at)).to.equal(true);
      const past = await world.as('providerAdmin').get('/api/stock?updated_since=2000-01-01T00:00:00Z').expect(200);
      expect(rows(past)).to.have.length(4);
      const future = await world.as('providerAdmin').get('/api/stock?updated_since=2999-01-01T00:00:00Z').expect(200);
      expect(rows(future)).to.deep.equal([]);
      const bad = await world.as('providerAdmin').get('/api/stock?updated_since=yesterday').expect(422);
      expect(bad.body.errors).to.have.all.keys('updated_since');
    });
  });

  describe('paging', () => {
    it('When per_page is 200, Then it is accepted; 201 is a 422 on per_page', async () => {
      const max = await world.as('providerAdmin').get('/api/stock?per_page=200').expect(200);
      expect(max.body.meta).to.include({ per_page: 200, total: 4 });
      const over = await world.as('providerAdmin').get('/api/stock?per_page=201').expect(422);
      expect(over.body.message).to.be.a('string');
      expect(over.body.errors).to.have.all.keys('per_page');
    });

    it('When paged by 3, Then the second page holds the fourth row', async () => {
      const first = await world.as('providerAdmin').get('/api/stock?per_page=3').expect(200);
      const second = await world.as('providerAdmin').get('/api/stock?per_page=3&page=2').expect(200);
      expect(second.body.meta).to.include({ current_page: 2, last_page: 2, total: 4, from: 4, to: 4 });
      expect(rows(second).map((r) => r.article_id)).to.deep.equal([world.articles.otherClient.id]);
      expect(rows(first).map((r) => r.id)).to.not.include(rows(second)[0]!.id);
    });
  });

  it('When the stock module is off, Then it answers 403', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['stock'] });
    const res = await off.as('viewer').get('/api/stock').expect(403);
    expect(res.body).to.deep.equal({ message: `The stock module is not active for company ${off.client.name}.` });
  });
});
