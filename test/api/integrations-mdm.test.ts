/** The master-data integration: /api/integrations/mdm/* with the shared MDM_TOKEN. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { nowDb } from '../../src/kernel/time.js';
import { api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { buildApp, ETSM_TEST_TOKEN, harness, MDM_TEST_TOKEN, testConfig, type Harness } from '../helpers/harness.js';

const UNAUTHENTICATED = { message: 'Unauthenticated.' };

/** The file's world, built once (every describe reads it; none changes what another asserts). */
let shared: Promise<World> | undefined;
const sharedWorld = (h: Harness): Promise<World> => (shared ??= createWorld(h.app, h.db));

describe('GET /api/integrations/mdm/ping', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await sharedWorld(h);
  });

  it('When the shared token is sent, Then it answers ok for mdm', async () => {
    await api(h.app, { token: MDM_TEST_TOKEN }).get('/api/integrations/mdm/ping').expect(200, { ok: true, integration: 'mdm' });
  });

  const wrong: Array<[string, () => string | undefined]> = [
    ['no token', () => undefined],
    ['a wrong token', () => `${MDM_TEST_TOKEN}x`],
    ['a prefix of the token', () => MDM_TEST_TOKEN.slice(0, -1)],
    ['the reception integration token', () => ETSM_TEST_TOKEN],
    ["an admin's personal access token", () => world.users.providerAdmin.token],
    ["a super-admin's personal access token", () => world.users.superAdmin.token],
  ];
  for (const [what, token] of wrong) {
    it(`When ${what} is sent, Then it answers 401`, async () => {
      await api(h.app, { token: token() }).get('/api/integrations/mdm/ping').expect(401, UNAUTHENTICATED);
    });
  }
});

describe('The mdm integration without MDM_TOKEN', () => {
  let off: Harness;
  let world: World;

  before(async () => {
    off = await buildApp({ config: testConfig({ MDM_TOKEN: '' }) });
    world = await sharedWorld(await harness());
  });

  const routes: Array<[string, string, (w: World) => string]> = [
    ['GET', 'ping', () => '/api/integrations/mdm/ping'],
    ['GET', 'sync-fields', () => '/api/integrations/mdm/sync-fields'],
    ['GET', 'clients/{client3plId}/articles', (w) => `/api/integrations/mdm/clients/${w.client.id}/articles`],
    ['PATCH', 'articles/by-code/{articleCode}', (w) => `/api/integrations/mdm/articles/by-code/${w.articles.client.code}`],
  ];
  for (const [method, name, path] of routes) {
    it(`When ${method} ${name} is called, with or without a token, Then it answers 503`, async () => {
      for (const token of [MDM_TEST_TOKEN, 'some-other-token', undefined]) {
        const req = api(off.app, { token, company: world.client.id }).request(method, path(world));
        if (method === 'PATCH') req.send({ name: 'Not configured' });
        await req.expect(503, { message: 'The mdm integration is not configured.' });
      }
      expect((await off.db('articles').where('id', world.articles.client.id).first()).name).to.equal(null);
    });
  }
});

describe('GET /api/integrations/mdm/sync-fields', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  it('When asked, Then it lists the fields of the partial update and every alias', async () => {
    await api(h.app, { token: MDM_TEST_TOKEN }).get('/api/integrations/mdm/sync-fields').expect(200, {
      fields: ['description', 'name', 'barcode', 'um3pl', 'active'],
      aliases: { title: 'name', long_description: 'description', ean: 'barcode', gtin: 'barcode', uom: 'um3pl', unit: 'um3pl', is_active: 'active', enabled: 'active' },
    });
  });

  it('When a personal access token is sent, Then it answers 401', async () => {
    const world = await sharedWorld(h);
    await api(h.app, { token: world.users.admin.token }).get('/api/integrations/mdm/sync-fields').expect(401, UNAUTHENTICATED);
  });
});

describe('GET /api/integrations/mdm/clients/{client3plId}/articles', () => {
  let h: Harness;
  let world: World;
  let more: number[];
  const mdm = (): ReturnType<typeof api> => api(h.app, { token: MDM_TEST_TOKEN });

  before(async () => {
    h = await harness();
    world = await sharedWorld(h);
    more = [];
    for (let i = 0; i < 2; i++) {
      more.push(await build.insertArticle(h.db, { company_id: world.client.id, article_code: unique(`M${i}-`), description: `Mdm ${i}`, um3pl: 'KG', barcode: `59400000000${i}` }));
    }
  });

  it("When the client exists, Then it answers ok and the client's articles by id, as the REST API shows them", async () => {
    const res = await mdm().get(`/api/integrations/mdm/clients/${world.client.id}/articles`).expect(200);
    expect(res.body.ok).to.equal(true);
    expect(res.body.articles.map((a: { id: number }) => a.id)).to.deep.equal([world.articles.client.id, ...more]);
    const rest = await world.as('viewer').get(`/api/articles/${more[1]}`).expect(200);
    expect(res.body.articles[2]).to.deep.equal(rest.body.data);
    expect(res.body.articles[2]).to.include({ barcode: '594000000001', um3pl_barcode: '594000000001' });
  });

  it('When limit is sent, Then at most that many come back, lowest ids first', async () => {
    const res = await mdm().get(`/api/integrations/mdm/clients/${world.client.id}/articles?limit=2`).expect(200);
    expect(res.body.articles.map((a: { id: number }) => a.id)).to.deep.equal([world.articles.client.id, more[0]]);
  });

  it('When limit is above 1000 or below 1, Then it answers 422 on limit', async () => {
    const high = await mdm().get(`/api/integrations/mdm/clients/${world.client.id}/articles?limit=1001`).expect(422);
    expect(high.body.errors).to.deep.equal({ limit: ['The limit field must not be greater than 1000.'] });
    const low = await mdm().get(`/api/integrations/mdm/clients/${world.client.id}/articles?limit=0`).expect(422);
    expect(low.body.errors).to.deep.equal({ limit: ['The limit field must be at least 1.'] });
  });

  it('When the client has more than 500 articles, Then 500 come back by default, up to 1000 on request, and all of them page by page with after', async () => {
    const big = world.otherClient;
    const now = nowDb();
    const rows = Array.from({ length: 501 }, (_, i) => ({
      company_id: big.id, article_code: `BULK-${i}`, description: `Bulk ${i}`, um3pl: 'BUC', integer_only_um3pl_quantity: false, active: true, created_at: now, updated_at: now,
    }));
    await h.db.batchInsert('articles', rows, 100);
    const ids = (await h.db('articles').where('company_id', big.id).orderBy('id').pluck('id')) as number[];
    expect(ids).to.have.length(502);
    const byDefault = await mdm().get(`/api/integrations/mdm/clients/${big.id}/articles`).expect(200);
    expect(byDefault.body.articles.map((a: { id: number }) => a.id)).to.deep.equal(ids.slice(0, 500));
    const most = await mdm().get(`/api/integrations/mdm/clients/${big.id}/articles?limit=1000`).expect(200);
    expect(most.body.articles.map((a: { id: number }) => a.id)).to.deep.equal(ids);
    // Page by page with `after`: every article once, in id order, the last answer short.
    const paged: number[] = [];
    let after = 0;
    for (;;) {
      const page = (await mdm().get(`/api/integrations/mdm/clients/${big.id}/articles?limit=200&after=${after}`).expect(200)).body.articles as Array<{ id: number }>;
      paged.push(...page.map((a) => a.id));
      if (page.length < 200) break;
      after = page.at(-1)!.id;
    }
    expect(paged).to.deep.equal(ids);
    expect((await mdm().get(`/api/integrations/mdm/clients/${big.id}/articles?after=${ids.at(-1)}`).expect(200)).body.articles).to.deep.equal([]);
    expect((await mdm().get(`/api/integrations/mdm/clients/${big.id}/articles?after=-1`).expect(422)).body.errors).to.have.all.keys('after');
  });

  it('When the id is unknown or is a provider, Then it answers 404', async () => {
    await mdm().get('/api/integrations/mdm/clients/2000000000/articles').expect(404, { message: 'Client 2000000000 was not found.' });
    await mdm().get(`/api/integrations/mdm/clients/${world.provider.id}/articles`).expect(404, { message: `Client ${world.provider.id} was not found.` });
  });

  it("When the client's articles module is off, Then it answers 403", async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['articles'] });
    await mdm().get(`/api/integrations/mdm/clients/${off.client.id}/articles`)
      .expect(403, { message: `The articles module is not active for company ${off.client.name}.` });
  });

  it('When a personal access token or a wrong token is sent, Then it answers 401', async () => {
    for (const token of [world.users.superAdmin.token, world.users.admin.token, 'nope']) {
      await api(h.app, { token }).get(`/api/integrations/mdm/clients/${world.client.id}/articles`).expect(401, UNAUTHENTICATED);
    }
  });
});
