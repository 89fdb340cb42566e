/** PATCH /api/articles/by-code/{articleCode}: the partial update by code. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { eventsOf } from '../fixtures/probes.js';

describe('PATCH /api/articles/by-code/{articleCode}', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const fresh = async (company?: number, code = unique('PATCH-')): Promise<{ id: number; code: string }> => ({
    id: await build.insertArticle(h.db, { company_id: company ?? world.client.id, article_code: code, name: 'Name', description: 'Before', um3pl: 'BUC', barcode: '5940000000009' }),
    code,
  });
  const row = (id: number): Promise<Record<string, unknown>> => h.db('articles').where('id', id).first();
  const path = (code: string): string => `/api/articles/by-code/${encodeURIComponent(code)}`;

  it('When one field is sent, Then only it changes, and one article.updated records the article', async () => {
    const { id, code } = await fresh();
    const before = (await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data;
    const res = await world.as('operator').patch(path(code)).send({ name: 'Renamed' }).expect(200);
    expect(res.body.data).to.deep.include({ ...before, name: 'Renamed', updated_at: res.body.data.updated_at });
    expect(res.body.data.updated_at > before.updated_at).to.equal(true);
    expect(await row(id)).to.include({ name: 'Renamed', description: 'Before', barcode: '5940000000009', um3pl: 'BUC' });
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([res.body.data]);
  });

  it('When every field is sent, Then each changes; um3pl is stored as the catalogue code', async () => {
    const { id, code } = await fresh();
    const res = await world.as('operator').patch(path(code))
      .send({ description: 'After', name: null, barcode: '5940000000011', um3pl: 'kg', active: false })
      .expect(200);
    expect(res.body.data).to.include({ id, article_code: code, description: 'After', name: null, barcode: '5940000000011', um3pl_barcode: '5940000000011', um3pl: 'KG', active: false });
    expect(await row(id)).to.include({ description: 'After', name: null, barcode: '5940000000011', um3pl: 'KG' });
  });

  it('When barcode is null, Then both barcode keys become null', async () => {
    const { id, code } = await fresh();
    const res = await world.as('operator').patch(path(code)).send({ barcode: null }).expect(200);
    expect(res.body.data).to.include({ barcode: null, um3pl_barcode: null });
    expect((await row(id)).barcode).to.equal(null);
  });

  it('When nothing changes, Then it answers the article with updated_at unchanged and records no event', async () => {
    const { id, code } = await fresh();
    const before = (await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data;
    const stored = await row(id);
    for (const body of [{}, { name: 'Name', description: 'Before', barcode: '5940000000009', um3pl: 'Buc', active: true }]) {
      expect((await world.as('operator').patch(path(code)).send(body).expect(200)).body.data).to.deep.equal(before);
    }
    expect(await row(id)).to.deep.equal(stored);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([]);
  });

  it('When the code is unknown in scope, Then it answers 404, even when the sibling or another provider has it', async () => {
    await world.as('operator').patch(path('NO-SUCH-CODE')).send({ name: 'x' }).expect(404, { message: 'Article "NO-SUCH-CODE" was not found.' });
    await world.as('operator').patch(path(`${world.articles.client.code} `)).send({ name: 'x' }).expect(404, { message: `Article "${world.articles.client.code} " was not found.` });
    await world.as('operator').patch(path(`${world.articles.client.code}\u200b`)).send({ name: 'x' }).expect(404, { message: `Article "${world.articles.client.code}\\u200B" was not found.` });
    for (const { id, code } of [world.articles.otherClient, other.articles.client]) {
      const before = await row(id);
      await world.as('operator').patch(path(code)).send({ name: 'Hijacked' }).expect(404, { message: `Article ${JSON.stringify(code)} was not found.` });
      expect(await row(id)).to.deep.equal(before);
    }
  });

  it('When the code differs only in case, Then it is another code (404)', async () => {
    const { code } = await fresh(undefined, unique('lower-'));
    await world.as('operator').patch(path(code.toUpperCase())).send({ name: 'x' }).expect(404);
  });

  it('When scoped to the provider and one client has the code, Then it updates that article and the event names that client', async () => {
    const { id, code } = await fresh(world.otherClient.id);
    const res = await world.as('providerAdmin').patch(path(code)).send({ description: 'By the provider' }).expect(200);
    expect(res.body.data).to.include({ id, client_3pl_id: world.otherClient.id, description: 'By the provider' });
    expect(await eventsOf(h.db, world.otherClient.id, 'article.updated', id)).to.deep.equal([res.body.data]);
  });

  it('When scoped to the provider and both clients have the code, Then it changes neither; scoped to one client it changes that one', async () => {
    const code = unique('BOTH-');
    const a = await fresh(world.client.id, code);
    const b = await fresh(world.otherClient.id, code);
    const res = await world.as('providerAdmin').patch(path(code)).send({ description: 'Which one?' }).expect(422);
    expect(Object.keys(res.body.errors)).to.deep.equal(['X-Company-Id']);
    expect((await row(a.id)).description).to.equal('Before');
    expect((await row(b.id)).description).to.equal('Before');
    await world.as('providerAdmin', world.otherClient.id).patch(path(code)).send({ description: 'B only' }).expect(200);
    expect((await row(a.id)).description).to.equal('Before');
    expect((await row(b.id)).description).to.equal('B only');
  });

  it('When the code has a space and a dot, Then the encoded path finds it', async () => {
    const { id, code } = await fresh(undefined, `${unique('SP ')}.v2`);
    const res = await world.as('operator').patch(path(code)).send({ name: 'Spaced' }).expect(200);
    expect(res.body.data).to.include({ id, article_code: code, name: 'Spaced' });
  });

  it('When um3pl is not in the catalogue, Then it answers 422 on um3pl and changes nothing', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await world.as('operator').patch(path(code)).send({ name: 'x', um3pl: 'PAL' }).expect(422);
    expect(res.body.errors).to.deep.equal({ um3pl: ['The unit "PAL" is not in the unit catalogue. Known units: BUC, KG.'] });
    expect(await row(id)).to.deep.equal(before);
  });

  it('When the body has fields the partial update does not take or values that break the schema, Then it answers 422 on each', async () => {
    const { id, code } = await fresh();
    const before = await row(id);
    const res = await world.as('operator').patch(path(code))
      .send({ article_code: 'NEW', um3pl_barcode: '1', integer_only_um3pl_quantity: true, name: 'n'.repeat(256), barcode: 5940000000009, active: 0 })
      .expect(422);
    expect(Object.keys(res.body.errors).sort()).to.deep.equal(['active', 'article_code', 'barcode', 'integer_only_um3pl_quantity', 'name', 'um3pl_barcode']);
    expect(res.body.errors).to.deep.include({
      article_code: ['The article_code field is not allowed.'],
      um3pl_barcode: ['The um3pl_barcode field is not allowed.'],
      integer_only_um3pl_quantity: ['The integer_only_um3pl_quantity field is not allowed.'],
      name: ['The name field must not be longer than 255 characters.'],
      active: ['The active field must be true or false.'],
    });
    expect(res.body.errors.barcode[0]).to.match(/^The barcode field must be a string/);
    expect(await row(id)).to.deep.equal(before);
  });

  it('When the code in the path is over 64 characters, Then it answers 422 on articleCode', async () => {
    const res = await world.as('operator').patch(path('C'.repeat(65))).send({ name: 'x' }).expect(422);
    expect(res.body.errors).to.deep.equal({ articleCode: ['The articleCode field must not be longer than 64 characters.'] });
  });

  it('When X-Company-Id is missing, Then it answers 400; a viewer gets 403', async () => {
    const { id, code } = await fresh();
    await world.as('operator', null).patch(path(code)).send({ name: 'x' }).expect(400, { message: 'The X-Company-Id header is required.' });
    const res = await world.as('viewer').patch(path(code)).send({ name: 'x' }).expect(403);
    expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
    expect((await row(id)).name).to.equal('Name');
  });
});
