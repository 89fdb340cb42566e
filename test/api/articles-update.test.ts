/** PUT /api/articles/{id}: the full update, its refused fields and its article.updated event. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { eventsOf } from '../fixtures/probes.js';

describe('PUT /api/articles/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const fresh = (company?: number, barcode: string | null = '5940000000009'): Promise<number> =>
    build.insertArticle(h.db, { company_id: company ?? world.client.id, article_code: unique('PUT-'), name: 'Name', description: 'Before', um3pl: 'BUC', barcode });
  const row = (id: number): Promise<Record<string, unknown>> => h.db('articles').where('id', id).first();

  it('When every updatable field changes, Then it answers the article, stores it and records one article.updated with it', async () => {
    const id = await fresh();
    const before = (await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data;
    const res = await world.as('operator').put(`/api/articles/${id}`)
      .send({ description: 'After', um3pl: 'kg', integer_only_um3pl_quantity: true, um3pl_barcode: '5940000000010', active: false })
      .expect(200);
    const article = res.body.data;
    expect(article).to.deep.include({
      id, client_3pl_id: world.client.id, article_code: before.article_code, name: 'Name', description: 'After', um3pl: 'KG',
      integer_only_um3pl_quantity: true, um3pl_barcode: '5940000000010', barcode: '5940000000010', active: false, created_at: before.created_at,
    });
    expect(article.updated_at > before.updated_at).to.equal(true);
    expect(await row(id)).to.include({ description: 'After', um3pl: 'KG', barcode: '5940000000010' });
    expect((await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data).to.deep.equal(article);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([article]);
  });

  it('When only some fields are sent, Then the others keep their values', async () => {
    const id = await fresh();
    const res = await world.as('operator').put(`/api/articles/${id}`).send({ description: 'Only this' }).expect(200);
    expect(res.body.data).to.include({ description: 'Only this', um3pl: 'BUC', barcode: '5940000000009', um3pl_barcode: '5940000000009', active: true, name: 'Name' });
  });

  it('When um3pl_barcode is null, Then both barcode keys become null', async () => {
    const id = await fresh();
    const res = await world.as('operator').put(`/api/articles/${id}`).send({ um3pl_barcode: null }).expect(200);
    expect(res.body.data).to.include({ um3pl_barcode: null, barcode: null });
    expect((await row(id)).barcode).to.equal(null);
  });

  it('When integer_only is sent, Then it sets integer_only_um3pl_quantity; a contradiction is 422 on integer_only', async () => {
    const id = await fresh();
    const res = await world.as('operator').put(`/api/articles/${id}`).send({ integer_only: true }).expect(200);
    expect(res.body.data.integer_only_um3pl_quantity).to.equal(true);
    const bad = await world.as('operator').put(`/api/articles/${id}`).send({ integer_only: false, integer_only_um3pl_quantity: true, description: 'x' }).expect(422);
    expect(bad.body.errors).to.deep.equal({ integer_only: ['The integer_only field is an alias of integer_only_um3pl_quantity and must not contradict it.'] });
    expect(await row(id)).to.include({ description: 'Before' });
  });

  it('When nothing changes, Then it answers the article with its updated_at unchanged and records no event', async () => {
    const id = await fresh();
    const before = (await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data;
    const stored = await row(id);
    for (const body of [{}, { description: 'Before', um3pl: 'buc', um3pl_barcode: '5940000000009', active: true, integer_only_um3pl_quantity: false }]) {
      const res = await world.as('operator').put(`/api/articles/${id}`).send(body).expect(200);
      expect(res.body.data).to.deep.equal(before);
    }
    expect(await row(id)).to.deep.equal(stored);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([]);
  });

  const refusedFields: Array<[string, unknown]> = [
    ['company_id', 1],
    ['barcode', '123'],
    ['created_at', '2020-01-01T00:00:00.000000Z'],
    ['updated_at', '2020-01-01T00:00:00.000000Z'],
  ];
  for (const [field, value] of refusedFields) {
    it(`When the body carries ${field}, Then it answers 422 naming it and the row is unchanged`, async () => {
      const id = await fresh();
      const before = await row(id);
      const res = await world.as('operator').put(`/api/articles/${id}`).send({ description: 'Changed', [field]: value }).expect(422);
      expect(res.body.errors).to.deep.equal({ [field]: [`The ${field} field is not allowed.`] });
      expect(await row(id)).to.deep.equal(before);
      expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([]);
    });
  }

  it('When name and article_code are sent, Then they change like the other fields, and a code taken within the client is a 422 on article_code', async () => {
    const id = await fresh();
    const code = unique('RENAMED-');
    const res = await world.as('operator').put(`/api/articles/${id}`).send({ name: 'New name', article_code: code }).expect(200);
    expect(res.body.data).to.include({ id, name: 'New name', article_code: code });
    expect(await eventsOf(h.db, world.client.id, 'article.updated', id)).to.deep.equal([res.body.data]);
    const cleared = await world.as('operator').put(`/api/articles/${id}`).send({ name: null }).expect(200);
    expect(cleared.body.data.name).to.equal(null);
    const taken = (await row(await fresh())).article_code as string;
    const refused = await world.as('operator').put(`/api/articles/${id}`).send({ article_code: taken, description: 'x' }).expect(422);
    expect(refused.body.errors).to.deep.equal({ article_code: ['The article_code has already been taken for this client.'] });
    const sibling = (await row(await fresh(world.otherClient.id))).article_code as string;
    await world.as('providerAdmin').put(`/api/articles/${id}`).send({ article_code: sibling }).expect(200);
  });

  it('When a create body is sent again as the update (with the article\'s own id and client), Then it applies; another id or client is a 422 on each', async () => {
    const id = await fresh();
    const body = { id, client_3pl_id: world.client.id, article_code: unique('AGAIN-'), description: 'Again', name: 'Again', um3pl: 'BUC', integer_only: true, um3pl_barcode: null, active: true };
    const res = await world.as('operator').put(`/api/articles/${id}`).send(body).expect(200);
    expect(res.body.data).to.include({ id, client_3pl_id: world.client.id, article_code: body.article_code, description: 'Again', name: 'Again', integer_only_um3pl_quantity: true, barcode: null });
    const before = await row(id);
    const refused = await world.as('operator').put(`/api/articles/${id}`).send({ id: id + 1, client_3pl_id: world.otherClient.id, description: 'Changed' }).expect(422);
    expect(refused.body.errors).to.deep.equal({
      id: [`The id cannot change; this article's id is ${id}.`],
      client_3pl_id: [`The client_3pl_id cannot change; this article belongs to client ${world.client.id}.`],
    });
    expect(await row(id)).to.deep.equal(before);
  });

  it('When um3pl is not in the catalogue, Then it answers 422 on um3pl and the row is unchanged', async () => {
    const id = await fresh();
    const before = await row(id);
    const res = await world.as('operator').put(`/api/articles/${id}`).send({ description: 'Changed', um3pl: 'LTR' }).expect(422);
    expect(res.body.errors).to.deep.equal({ um3pl: ['The unit "LTR" is not in the unit catalogue. Known units: BUC, KG.'] });
    expect(await row(id)).to.deep.equal(before);
  });

  it('When values break the schema, Then it answers 422 on each', async () => {
    const id = await fresh();
    const res = await world.as('operator').put(`/api/articles/${id}`).send({ description: 'd'.repeat(1001), um3pl: '', active: 'no', integer_only_um3pl_quantity: null }).expect(422);
    expect(res.body.errors).to.deep.equal({
      description: ['The description field must not be longer than 1000 characters.'],
      um3pl: ['The um3pl field must not be empty.'],
      active: ['The active field must be true or false.'],
      integer_only_um3pl_quantity: ['The integer_only_um3pl_quantity field must be true or false.'],
    });
  });

  it('When scoped to the provider, Then it updates an article of either client and the event names that client', async () => {
    const id = await fresh(world.otherClient.id);
    const res = await world.as('providerAdmin').put(`/api/articles/${id}`).send({ description: 'By the provider' }).expect(200);
    expect(res.body.data).to.include({ client_3pl_id: world.otherClient.id, description: 'By the provider' });
    expect(await eventsOf(h.db, world.otherClient.id, 'article.updated', id)).to.deep.equal([res.body.data]);
  });

  it("When the article is a sibling's or another tenant's, Then it answers 404 and changes nothing", async () => {
    for (const [id, owner] of [[world.articles.otherClient.id, world.otherClient.id], [other.articles.client.id, other.client.id]] as const) {
      const before = await row(id);
      await world.as('operator').put(`/api/articles/${id}`).send({ description: 'Hijacked' }).expect(404, { message: `Article ${id} was not found.` });
      expect(await row(id)).to.deep.equal(before);
      expect(await eventsOf(h.db, owner, 'article.updated', id)).to.deep.equal([]);
    }
  });

  it('When X-Company-Id is missing, Then it answers 400; a viewer gets 403', async () => {
    const id = await fresh();
    await world.as('operator', null).put(`/api/articles/${id}`).send({ description: 'x' }).expect(400, { message: 'The X-Company-Id header is required.' });
    const res = await world.as('viewer').put(`/api/articles/${id}`).send({ description: 'x' }).expect(403);
    expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
    expect((await row(id)).description).to.equal('Before');
  });
});
