/** GET /api/articles, GET /api/articles/{id} and POST /api/articles. */
import { expect } from 'chai';
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness, TEST_APP_URL } from '../helpers/harness.js';
import { outboxEvents, API_TIME as TIME } from '../fixtures/probes.js';

const ids = (res: { body: { data: Array<{ id: number }> } }): number[] => res.body.data.map((row) => row.id);
const desc = (values: number[]): number[] => [...values].sort((a, b) => b - a);


async function articleCount(db: Knex, companyId: number): Promise<number> {
  const row = await db('articles').where('company_id', companyId).count({ n: '*' }).first();
  return Number(row!.n);
}

/** The file's worlds, built once: `world` for the reads, `other` (another provider) for every describe. */
let shared: Promise<{ world: World; other: World }> | undefined;
const worlds = (h: Harness): Promise<{ world: World; other: World }> =>
  (shared ??= (async () => ({ world: await createWorld(h.app, h.db), other: await createWorld(h.app, h.db) }))());

describe('GET /api/articles', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let tomato: number;
  let cucumber: number;
  let sunDried: number;

  before(async () => {
    h = await harness();
    ({ world, other } = await worlds(h));
    const { client, otherClient } = world;
    tomato = await build.insertArticle(h.db, {
      company_id: client.id, article_code: 'TOM-400', name: 'Tomato Paste', description: 'Jar 400 g', um3pl: 'BUC', barcode: '5941234567890',
    });
    cucumber = await build.insertArticle(h.db, { company_id: client.id, article_code: 'cuc-1', description: 'Cucumbers in BRINE', um3pl: 'KG' });
    sunDried = await build.insertArticle(h.db, { company_id: otherClient.id, article_code: 'OTHER-7', description: 'Sun-dried tomatoes', um3pl: 'KG' });
  });

  const all = (): number[] => desc([world.articles.client.id, world.articles.otherClient.id, tomato, cucumber, sunDried]);

  it("When scoped to the provider, Then it lists both clients' articles, newest id first", async () => {
    const res = await world.as('providerAdmin').get('/api/articles').expect(200);
    expect(ids(res)).to.deep.equal(all());
    expect(res.body.meta).to.include({ total: 5, current_page: 1, per_page: 25, from: 1, to: 5, last_page: 1 });
  });

  it('When scoped to a client, Then it lists only that client\'s articles', async () => {
    expect(ids(await world.as('viewer').get('/api/articles').expect(200))).to.deep.equal(desc([world.articles.client.id, tomato, cucumber]));
    expect(ids(await world.as('otherClientAdmin').get('/api/articles').expect(200))).to.deep.equal(desc([world.articles.otherClient.id, sunDried]));
    const scoped = await world.as('providerAdmin', world.otherClient.id).get('/api/articles').expect(200);
    expect(ids(scoped)).to.deep.equal(desc([world.articles.otherClient.id, sunDried]));
  });

  it("When another provider lists, Then it sees none of this provider's articles", async () => {
    const res = await other.as('providerAdmin').get('/api/articles?per_page=100').expect(200);
    expect(ids(res)).to.deep.equal(desc([other.articles.client.id, other.articles.otherClient.id]));
  });

  it('When an article is listed, Then it shows every field, with barcode and um3pl_barcode alike', async () => {
    const res = await world.as('viewer').get('/api/articles?search=TOM-400').expect(200);
    expect(res.body.data).to.have.length(1);
    const row = res.body.data[0];
    expect(row).to.include({
      id: tomato, client_3pl_id: world.client.id, article_code: 'TOM-400', name: 'Tomato Paste', description: 'Jar 400 g', um3pl: 'BUC',
      integer_only_um3pl_quantity: false, um3pl_barcode: '5941234567890', barcode: '5941234567890', active: true,
    });
    expect(row.created_at).to.match(TIME);
    expect(row.updated_at).to.match(TIME);
  });

  const searches: Array<[string, string, () => number[]]> = [
    ['the code, in other case', 'tom-4', () => [tomato]],
    ['the name, in other case', 'pASTE', () => [tomato]],
    ['the description, in other case', 'brine', () => [cucumber]],
    ['part of the barcode', '12345678', () => [tomato]],
    ['name or description across clients', 'TOMATO', () => [sunDried, tomato]],
  ];
  for (const [what, term, expected] of searches) {
    it(`When searching ${what}, Then it matches case-insensitively`, async () => {
      const res = await world.as('providerAdmin').get(`/api/articles?search=${encodeURIComponent(term)}`).expect(200);
      expect(ids(res)).to.deep.equal(expected());
    });
  }

  it('When the search term holds a control character (NUL, a line feed), Then 422 on search: it matched every article on SQLite', async () => {
    for (const term of ['%00', 'TOM%0A', 'x%C2%85']) {
      const res = await world.as('providerAdmin').get(`/api/articles?search=${term}`).expect(422);
      expect(res.body.errors, term).to.deep.equal({ search: ['The search field must not hold control characters.'] });
    }
  });

  it('When search is empty or only whitespace (spaces, a tab, a no-break space), Then it is the same 422 on search, not a search matching everything', async () => {
    const empty = { search: ['The search field must not be empty; leave it out instead.'] };
    for (const path of ['/api/articles', '/api/clients', '/api/partners']) {
      for (const term of ['', '%20%20', '+', '%09', '%C2%A0']) {
        const res = await world.as('providerAdmin').get(`${path}?search=${term}`).expect(422);
        expect(res.body.errors, `${path} ${term}`).to.deep.equal(empty);
      }
    }
  });

  it("When a client searches a term only its sibling's article matches, Then nothing comes back", async () => {
    const res = await world.as('admin').get('/api/articles?search=sun-dried').expect(200);
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.meta.total).to.equal(0);
  });

  it('When paging, Then meta and links follow the paginator', async () => {
    const res = await world.as('providerAdmin').get('/api/articles?per_page=2&page=2').expect(200);
    expect(ids(res)).to.deep.equal(all().slice(2, 4));
    expect(res.body.meta).to.deep.equal({ current_page: 2, from: 3, last_page: 3, path: `${TEST_APP_URL}/api/articles`, per_page: 2, to: 4, total: 5 });
    expect(res.body.links).to.deep.equal({
      first: `${TEST_APP_URL}/api/articles?per_page=2&page=1`,
      last: `${TEST_APP_URL}/api/articles?per_page=2&page=3`,
      prev: `${TEST_APP_URL}/api/articles?per_page=2&page=1`,
      next: `${TEST_APP_URL}/api/articles?per_page=2&page=3`,
    });
    const last = await world.as('providerAdmin').get('/api/articles?per_page=2&page=3').expect(200);
    expect(ids(last)).to.deep.equal(all().slice(4));
    expect(last.body.links.next).to.equal(null);
  });

  it('When per_page is 101 or search is over 100 characters, Then it answers 422 on each', async () => {
    const res = await world.as('providerAdmin').get(`/api/articles?per_page=101&search=${'x'.repeat(101)}`).expect(422);
    expect(res.body.errors).to.deep.equal({
      per_page: ['The per_page field must not be greater than 100.'],
      search: ['The search field must not be longer than 100 characters.'],
    });
  });

  it('When the articles module is off, Then it answers 403', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['articles'] });
    await off.as('viewer').get('/api/articles').expect(403, { message: `The articles module is not active for company ${off.client.name}.` });
  });
});

describe('GET /api/articles/{id}', () => {
  let world: World;
  let other: World;

  before(async () => {
    ({ world, other } = await worlds(await harness()));
  });

  it('When the article is in scope, Then it answers it', async () => {
    const { id, code } = world.articles.client;
    const res = await world.as('viewer').get(`/api/articles/${id}`).expect(200);
    expect(res.body.data).to.include({ id, article_code: code, client_3pl_id: world.client.id, description: `Article ${code}`, um3pl: 'BUC', name: null, barcode: null, um3pl_barcode: null });
    await world.as('providerViewer').get(`/api/articles/${world.articles.otherClient.id}`).expect(200);
  });

  it("When the article is another tenant's, Then it answers 404 as for an unknown id", async () => {
    const foreign = other.articles.client.id;
    await world.as('providerAdmin').get(`/api/articles/${foreign}`).expect(404, { message: `Article ${foreign} was not found.` });
    const sibling = world.articles.otherClient.id;
    await world.as('admin').get(`/api/articles/${sibling}`).expect(404, { message: `Article ${sibling} was not found.` });
    await world.as('admin').get('/api/articles/2000000000').expect(404, { message: 'Article 2000000000 was not found.' });
  });
});

describe('POST /api/articles', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    ({ other } = await worlds(h));
    await build.insertUnit(h.db, { company_id: other.provider.id, code: 'PAL', name: 'Pallet', integer_only: true });
  });

  it('When an operator of a client creates an article, Then it belongs to that client, reads back the same and records article.created', async () => {
    const code = unique('NEW-');
    const res = await world.as('operator').post('/api/articles').send({ article_code: code, description: 'Olive oil 1 l', um3pl: 'BUC' }).expect(201);
    const article = res.body.data;
    expect(article).to.include({
      client_3pl_id: world.client.id, article_code: code, name: null, description: 'Olive oil 1 l', um3pl: 'BUC',
      integer_only_um3pl_quantity: false, um3pl_barcode: null, barcode: null, active: true,
    });
    expect(article.created_at).to.match(TIME);
    expect(article.updated_at).to.equal(article.created_at);
    expect((await world.as('viewer').get(`/api/articles/${article.id}`).expect(200)).body.data).to.deep.equal(article);
    const recorded = (await outboxEvents(h.db, world.client.id, 'article.created')).filter((e) => (e.data as { id: number }).id === article.id);
    expect(recorded).to.have.length(1);
    expect(recorded[0]!.data).to.deep.equal(article);
    expect(recorded[0]!.event_id).to.be.a('string').and.not.equal('');
  });

  it('When every field is sent, Then each is stored and both barcode keys show the barcode', async () => {
    const body = { article_code: unique('FULL-'), description: 'Flour 1 kg', name: 'Flour', um3pl: 'KG', integer_only_um3pl_quantity: true, um3pl_barcode: '5940000000001', active: false, client_3pl_id: world.client.id };
    const res = await world.as('admin').post('/api/articles').send(body).expect(201);
    const { client_3pl_id, ...rest } = body;
    expect(res.body.data).to.include({ ...rest, client_3pl_id, barcode: '5940000000001' });
    const row = await h.db('articles').where('id', res.body.data.id).first();
    expect(row).to.include({ company_id: world.client.id, barcode: '5940000000001', um3pl: 'KG' });
  });

  it('When integer_only is sent, Then it sets integer_only_um3pl_quantity; agreeing values are fine', async () => {
    const alias = await world.as('operator').post('/api/articles').send({ article_code: unique('IO-'), description: 'd', um3pl: 'KG', integer_only: true }).expect(201);
    expect(alias.body.data.integer_only_um3pl_quantity).to.equal(true);
    const both = await world.as('operator').post('/api/articles').send({ article_code: unique('IO-'), description: 'd', um3pl: 'KG', integer_only: false, integer_only_um3pl_quantity: false }).expect(201);
    expect(both.body.data.integer_only_um3pl_quantity).to.equal(false);
  });

  it('When integer_only contradicts integer_only_um3pl_quantity, Then it answers 422 on integer_only and stores nothing', async () => {
    const code = unique('IO-');
    const res = await world.as('operator').post('/api/articles').send({ article_code: code, description: 'd', um3pl: 'KG', integer_only: true, integer_only_um3pl_quantity: false }).expect(422);
    expect(res.body.errors).to.deep.equal({ integer_only: ['The integer_only field is an alias of integer_only_um3pl_quantity and must not contradict it.'] });
    expect(await h.db('articles').where('article_code', code).first()).to.equal(undefined);
  });

  it('When scoped to the provider with a client_3pl_id of its client, Then the article belongs to that client', async () => {
    const res = await world.as('providerAdmin').post('/api/articles').send({ article_code: unique('P-'), description: 'd', um3pl: 'BUC', client_3pl_id: world.otherClient.id }).expect(201);
    expect(res.body.data.client_3pl_id).to.equal(world.otherClient.id);
    expect((await outboxEvents(h.db, world.otherClient.id, 'article.created')).map((e) => (e.data as { id: number }).id)).to.include(res.body.data.id);
  });

  it('When scoped to the provider without client_3pl_id, Then it answers 422 on client_3pl_id', async () => {
    const res = await world.as('providerAdmin').post('/api/articles').send({ article_code: unique('P-'), description: 'd', um3pl: 'BUC' }).expect(422);
    expect(res.body.errors).to.deep.equal({ client_3pl_id: ['The client_3pl_id field is required when X-Company-Id is a provider.'] });
  });

  it('When client_3pl_id names a sibling client or a client of another provider, Then it answers 422 on client_3pl_id', async () => {
    const before = await articleCount(h.db, world.otherClient.id);
    for (const [actor, clientId] of [['operator', world.otherClient.id], ['providerAdmin', other.client.id], ['providerAdmin', world.provider.id]] as const) {
      const res = await world.as(actor).post('/api/articles').send({ article_code: unique('X-'), description: 'd', um3pl: 'BUC', client_3pl_id: clientId }).expect(422);
      expect(res.body.errors).to.deep.equal({ client_3pl_id: ['The client_3pl_id must be a client company in scope.'] });
    }
    expect(await articleCount(h.db, world.otherClient.id)).to.equal(before);
    expect(await articleCount(h.db, other.client.id)).to.equal(1);
  });

  it("When um3pl is a catalogue unit in other case, Then it is stored as the catalogue's code", async () => {
    const res = await world.as('operator').post('/api/articles').send({ article_code: unique('U-'), description: 'd', um3pl: 'kg' }).expect(201);
    expect(res.body.data.um3pl).to.equal('KG');
    expect((await h.db('articles').where('id', res.body.data.id).first()).um3pl).to.equal('KG');
  });

  it("When um3pl is not in the provider's catalogue (even if another provider has it), Then it answers 422 listing the known units", async () => {
    for (const unit of ['LTR', 'PAL']) {
      const res = await world.as('operator').post('/api/articles').send({ article_code: unique('U-'), description: 'd', um3pl: unit }).expect(422);
      expect(res.body.errors).to.deep.equal({ um3pl: [`The unit ${JSON.stringify(unit)} is not in the unit catalogue. Known units: BUC, KG.`] });
    }
  });

  it('When the article_code is taken for the client, Then it answers 422 and records no event; the other client may use it', async () => {
    const code = unique('DUP-');
    await world.as('operator').post('/api/articles').send({ article_code: code, description: 'first', um3pl: 'BUC' }).expect(201);
    const eventsBefore = (await outboxEvents(h.db, world.client.id, 'article.created')).length;
    const res = await world.as('operator').post('/api/articles').send({ article_code: code, description: 'second', um3pl: 'KG' }).expect(422);
    expect(res.body.errors).to.deep.equal({ article_code: ['The article_code has already been taken for this client.'] });
    expect((await outboxEvents(h.db, world.client.id, 'article.created')).length).to.equal(eventsBefore);
    expect(await h.db('articles').where({ company_id: world.client.id, article_code: code }).pluck('description')).to.deep.equal(['first']);
    const sibling = await world.as('otherClientAdmin').post('/api/articles').send({ article_code: code, description: 'sibling', um3pl: 'BUC' }).expect(201);
    expect(sibling.body.data).to.include({ client_3pl_id: world.otherClient.id, article_code: code });
  });

  it('When codes differ only in case, Then they are different codes', async () => {
    const code = unique('case-');
    await world.as('operator').post('/api/articles').send({ article_code: code, description: 'lower', um3pl: 'BUC' }).expect(201);
    const res = await world.as('operator').post('/api/articles').send({ article_code: code.toUpperCase(), description: 'upper', um3pl: 'BUC' }).expect(201);
    expect(res.body.data.article_code).to.equal(code.toUpperCase());
  });

  it('When the client chooses a free id, Then the article gets it; a taken id is 422 on id', async () => {
    const max = Number((await h.db('articles').max({ m: 'id' }).first())!.m);
    const id = max + 1000 + Math.floor(Math.random() * 1000);
    const res = await world.as('operator').post('/api/articles').send({ id, article_code: unique('ID-'), description: 'd', um3pl: 'BUC' }).expect(201);
    expect(res.body.data.id).to.equal(id);
    await world.as('viewer').get(`/api/articles/${id}`).expect(200);
    const eventsBefore = (await outboxEvents(h.db, world.client.id, 'article.created')).length;
    for (const taken of [id, other.articles.client.id]) {
      const again = await world.as('operator').post('/api/articles').send({ id: taken, article_code: unique('ID-'), description: 'd', um3pl: 'BUC' }).expect(422);
      expect(again.body.errors).to.deep.equal({ id: ['The id has already been taken.'] });
    }
    expect((await outboxEvents(h.db, world.client.id, 'article.created')).length).to.equal(eventsBefore);
    expect((await h.db('articles').where('id', other.articles.client.id).first()).company_id).to.equal(other.client.id);
  });

  it('When X-Company-Id is missing, Then it answers 400', async () => {
    await world.as('operator', null).post('/api/articles').send({ article_code: unique(), description: 'd', um3pl: 'BUC' })
      .expect(400, { message: 'The X-Company-Id header is required.' });
  });

  it('When a viewer creates, Then it answers 403 and stores nothing', async () => {
    const code = unique('V-');
    const res = await world.as('viewer').post('/api/articles').send({ article_code: code, description: 'd', um3pl: 'BUC' }).expect(403);
    expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
    expect(await h.db('articles').where('article_code', code).first()).to.equal(undefined);
  });
});
