/** PATCH /api/integrations/mdm/articles/by-code/{articleCode}: the partial update with field aliases. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { api, type Api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, MDM_TEST_TOKEN, type Harness } from '../helpers/harness.js';
import { eventsOf } from '../fixtures/probes.js';

describe('PATCH /api/integrations/mdm/articles/by-code/{articleCode}', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const mdm = (company?: number | null): Api => api(h.app, { token: MDM_TEST_TOKEN, company: company === null ? undefined : (company ?? world.client.id) });
  const fresh = async (company?: number, code = unique('MDM-')): Promise<{ id: number; code: string }> => ({
    id: await build.insertArticle(h.db, { company_id: company ?? world.client.id, article_code: code, name: 'Name', description: 'Before', um3pl: 'BUC', barcode: '5940000000009' }),
    code,
  });
  const row = (id: number): Promise<Record<string, unknown>> => h.db('articles').where('id', id).first();
  const path = (code: string): string => `/api/integrations/mdm/articles/by-code/${encodeURIComponent(code)}`;

  it('When aliases are sent, Then they update their fields (uom as the catalogue code) and article.updated records the article', async () => {
    const { id, code } = await fresh();
    const res = await mdm().patch(path(code)).send({ title: 'X', ean: '123', uom: 'kg', enabled: false }).expect(200);
    expect(res.body.data).to.include({ id, article_code: code, client_3pl_id: world.client.id, name: 'X', barcode: '123', um3pl_barcode: '123', um3pl: 'KG', active: false, description: 'Before' });
    expect(await row(id)).to.include({ name: 'X', barcode: '123', um3pl: 'KG' });
    expect(Boolean((await row(id)).active)).to.equal(false);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([res.body.data]);
  });

  it('When the other aliases are sent, Then they update their fields too', async () => {
    const { id, code } = await fresh();
    const res = await mdm().patch(path(code)).send({ long_description: 'Long', gtin: '0001', unit: 'KG', is_active: false }).expect(200);
    expect(res.body.data).to.include({ id, description: 'Long', barcode: '0001', um3pl: 'KG', active: false, name: 'Name' });
  });

  it('When the fields are sent by their own names, Then they update as in the REST partial update', async () => {
    const { id, code } = await fresh();
    const res = await mdm().patch(path(code)).send({ description: 'Own', name: null, barcode: null, um3pl: 'Kg', active: true }).expect(200);
    expect(res.body.data).to.include({ id, description: 'Own', name: null, barcode: null, um3pl_barcode: null, um3pl: 'KG', active: true });
  });

  it('When a field and its alias carry the same value, Then it is accepted', async () => {
    const { id, code } = await fresh();
    const res = await mdm().patch(path(code)).send({ name: 'Same', title: 'Same', barcode: '77', ean: '77', gtin: '77', active: false, enabled: false, is_active: false }).expect(200);
    expect(res.body.data).to.include({ id, name: 'Same', barcode: '77', active: false });
  });

  it('When a field and its alias (sent after it) disagree, Then it answers 422 naming the alias and changes nothing', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await mdm().patch(path(code)).send({ name: 'A', title: 'B' }).expect(422);
    expect(Object.keys(res.body.errors)).to.deep.equal(['title']);
    expect(res.body.errors.title[0]).to.include('title').and.include('name');
    expect(await row(id)).to.deep.equal(before);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([]);
  });

  it('When an alias (sent before its field) disagrees with the field, Then it answers 422 naming the alias', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await mdm().patch(path(code)).send({ enabled: false, active: true }).expect(422);
    expect(Object.keys(res.body.errors)).to.deep.equal(['enabled']);
    expect(await row(id)).to.deep.equal(before);
  });

  it('When two aliases of one field disagree, Then it answers 422 on one of them and changes nothing', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await mdm().patch(path(code)).send({ ean: '1', gtin: '2' }).expect(422);
    expect(Object.keys(res.body.errors)).to.have.length(1);
    expect(['ean', 'gtin']).to.include(Object.keys(res.body.errors)[0]);
    expect(await row(id)).to.deep.equal(before);
  });

  it('When an alias breaks its schema, Then it answers 422 on the alias', async () => {
    const { code } = await fresh();
    const res = await mdm().patch(path(code)).send({ uom: '', title: 't'.repeat(256), enabled: 'yes' }).expect(422);
    expect(res.body.errors).to.deep.equal({
      uom: ['The uom field must not be empty.'],
      title: ['The title field must not be longer than 255 characters.'],
      enabled: ['The enabled field must be true or false.'],
    });
  });

  it('When an alias names a unit outside the catalogue, Then it answers 422', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await mdm().patch(path(code)).send({ unit: 'LTR' }).expect(422);
    expect(res.body.message).to.be.a('string');
    expect(Object.values(res.body.errors as Record<string, string[]>).flat()).to.deep.equal(['The unit "LTR" is not in the unit catalogue. Known units: BUC, KG.']);
    expect(await row(id)).to.deep.equal(before);
  });

  it('When the body has an unknown property, Then it answers 422 on it', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await mdm().patch(path(code)).send({ title: 'x', sku: 'S-1', article_code: 'NEW' }).expect(422);
    expect(res.body.errors).to.deep.equal({ sku: ['The sku field is not allowed.'], article_code: ['The article_code field is not allowed.'] });
    expect(await row(id)).to.deep.equal(before);
  });

  it("When X-Company-Id is the provider's, Then it answers 422 on the header (the integration acts for one client, with its modules) and changes nothing", async () => {
    const { id, code } = await fresh();
    const res = await mdm(world.provider.id).patch(path(code)).send({ title: 'Through the provider' }).expect(422);
    expect(res.body.errors).to.deep.equal({
      'X-Company-Id': [`The X-Company-Id header of the master-data integration must be the id of a client company; company ${world.provider.id} is a provider.`],
    });
    expect(await row(id)).to.include({ name: 'Name' });
  });

  it("When the code is unknown for the client, Then it answers 404, also for its sibling's or another provider's code", async () => {
    await mdm().patch(path('NO-SUCH-CODE')).send({ title: 'x' }).expect(404, { message: 'Article "NO-SUCH-CODE" was not found.' });
    for (const { id, code } of [world.articles.otherClient, other.articles.client]) {
      const before = await row(id);
      await mdm().patch(path(code)).send({ title: 'x' }).expect(404, { message: `Article ${JSON.stringify(code)} was not found.` });
      expect(await row(id)).to.deep.equal(before);
    }
  });

  it('When nothing changes, Then it answers the article unchanged and records no event', async () => {
    const { id, code } = await fresh();
    const before = (await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data;
    expect((await mdm().patch(path(code)).send({ title: 'Name', uom: 'buc' }).expect(200)).body.data).to.deep.equal(before);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([]);
  });

  it('When X-Company-Id is missing, Then it answers 400 and changes nothing', async () => {
    const { id, code } = await fresh();
    await mdm(null).patch(path(code)).send({ title: 'x' }).expect(400, { message: 'The X-Company-Id header is required.' });
    expect((await row(id)).name).to.equal('Name');
  });

  it("When the client's articles module is off, Then it answers 403", async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['articles'] });
    await mdm(off.client.id).patch(path(off.articles.client.code)).send({ title: 'x' })
      .expect(403, { message: `The articles module is not active for company ${off.client.name}.` });
  });

  it('When a personal access token or no token is sent, Then it answers 401 and changes nothing', async () => {
    const { id, code } = await fresh();
    for (const token of [world.users.admin.token, world.users.superAdmin.token, undefined]) {
      await api(h.app, { token, company: world.client.id }).patch(path(code)).send({ title: 'x' }).expect(401, { message: 'Unauthenticated.' });
    }
    expect((await row(id)).name).to.equal('Name');
  });
});
