/** /api/webhooks and /api/webhooks/{id}: subscriptions, their secret, access and scope. */
import { expect } from 'chai';
import { nowDb } from '../../src/kernel/time.js';
import type { Schema } from '../../src/platform/openapi/schemas.js';
import { api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { buildApp, harness, testConfig, type Harness } from '../helpers/harness.js';
import { API_TIME as TIME } from '../fixtures/probes.js';

const CATALOGUE = [
  'article.created', 'article.updated', 'purchase_order.created', 'purchase_order.updated', 'reception.created',
  'reception.updated', 'sales_order.created', 'sales_order.updated', 'sales_order.status_changed', 'shipment.created', 'return.created', 'stock.changed',
  'stock.adjusted', 'stock.transferred',
];
const WEBHOOK_KEYS = ['id', 'company_id', 'url', 'events', 'description', 'active', 'disabled_reason', 'created_at', 'updated_at'];

/** A local URL nothing listens on (the shared app allows http and private targets). */
const hookUrl = (): string => `http://127.0.0.1:9/hooks/${unique()}`;

function expectSecret(secret: unknown): Buffer {
  expect(secret).to.be.a('string').and.match(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
  const key = Buffer.from((secret as string).slice('whsec_'.length), 'base64');
  expect(key.toString('base64')).to.equal((secret as string).slice('whsec_'.length));
  expect(key.length).to.be.at.least(24);
  return key;
}

describe('Webhook subscriptions', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const row = (id: number): Promise<Record<string, unknown> | undefined> => h.db('webhooks').where('id', id).first();
  const create = async (body: Record<string, unknown> = {}, actor: Parameters<World['as']>[0] = 'admin', company?: number) =>
    (await world.as(actor, company).post('/api/webhooks').send({ url: hookUrl(), events: ['*'], ...body }).expect(201)).body.data;

  describe('POST /api/webhooks', () => {
    it('When an admin subscribes, Then it answers 201 with the subscription and its secret once, and stores both', async () => {
      const url = hookUrl();
      const res = await world.as('admin').post('/api/webhooks')
        .send({ url, events: ['stock.changed', 'reception.created'], description: 'ERP stock sync' }).expect(201);
      const data = res.body.data;
      expect(Object.keys(data).sort()).to.deep.equal([...WEBHOOK_KEYS, 'secret'].sort());
      expect(data).to.deep.include({ company_id: world.client.id, url, events: ['stock.changed', 'reception.created'], description: 'ERP stock sync', active: true, disabled_reason: null });
      expect(data.created_at).to.match(TIME);
      expect(data.updated_at).to.equal(data.created_at);
      expectSecret(data.secret);
      expect(await row(data.id)).to.include({ company_id: world.client.id, url, secret: data.secret });
    });

    it('When two subscriptions are created, Then their secrets differ', async () => {
      const [a, b] = [await create(), await create()];
      expect(expectSecret(a.secret).equals(expectSecret(b.secret))).to.equal(false);
    });

    it('When active is false, description is omitted and an event repeats, Then it stores it inactive, null and once', async () => {
      const data = await create({ events: ['article.created', 'article.created', 'stock.changed'], active: false });
      expect(data).to.deep.include({ events: ['article.created', 'stock.changed'], active: false, description: null });
    });
  });

  describe('GET /api/webhooks and GET /api/webhooks/{id}', () => {
    it('When the webhook is read, one or in the list, Then the secret is never shown', async () => {
      const created = await create({ description: 'Read me' });
      const { secret, ...expected } = created;
      const one = await world.as('admin').get(`/api/webhooks/${created.id}`).expect(200);
      expect(one.body.data).to.deep.equal(expected);
      expect(one.text).not.to.include(secret);
      const list = await world.as('admin').get('/api/webhooks?per_page=100').expect(200);
      expect(list.body.data.find((w: { id: number }) => w.id === created.id)).to.deep.equal(expected);
      expect(list.text).not.to.include('whsec_');
      expect(list.body.data.every((w: Record<string, unknown>) => !('secret' in w))).to.equal(true);
    });

    it('When the list is read, Then it is a paginated list of the scope, in id order', async () => {
      const fresh = await createWorld(h.app, h.db);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await fresh.as('admin').post('/api/webhooks').send({ url: hookUrl(), events: ['*'] }).expect(201)).body.data.id);
      const page1 = await fresh.as('admin').get('/api/webhooks?per_page=2').expect(200);
      expect(page1.body.data.map((w: { id: number }) => w.id)).to.deep.equal(ids.slice(0, 2));
      expect(page1.body.meta).to.include({ total: 3, per_page: 2, current_page: 1, last_page: 2 });
      const page2 = await fresh.as('admin').get('/api/webhooks?per_page=2&page=2').expect(200);
      expect(page2.body.data.map((w: { id: number }) => w.id)).to.deep.equal(ids.slice(2));
    });
  });

  describe('PUT /api/webhooks/{id}', () => {
    it('When rotate_secret is true, Then the response shows a new secret once, the stored secret changes, and reads still hide it', async () => {
      const created = await create();
      const res = await world.as('admin').put(`/api/webhooks/${created.id}`).send({ rotate_secret: true }).expect(200);
      // As a client typed from the document reads it: `secret` is an optional field of the one
      // answer type, not a member of a union to narrow first (this line does not compile otherwise).
      const answered: string | undefined = (res.body as Schema<'WebhookUpdateResponse'>).data.secret;
      expectSecret(answered);
      expect(res.body.data.secret).not.to.equal(created.secret);
      expect((await row(created.id))!.secret).to.equal(res.body.data.secret);
      const read = await world.as('admin').get(`/api/webhooks/${created.id}`).expect(200);
      expect(read.body.data).not.to.have.property('secret');
    });

    it('When a PUT does not rotate, Then the response has no secret and the stored secret is kept', async () => {
      const created = await create();
      for (const body of [{ description: 'Changed' }, { rotate_secret: false }]) {
        const res = await world.as('admin').put(`/api/webhooks/${created.id}`).send(body).expect(200);
        expect(res.body.data).not.to.have.property('secret');
      }
      expect((await row(created.id))!.secret).to.equal(created.secret);
    });

    it('When fields are updated, Then only they change and updated_at moves on', async () => {
      const created = await create({ description: 'Before', events: ['article.created'] });
      const url = hookUrl();
      const res = await world.as('admin').put(`/api/webhooks/${created.id}`).send({ url, events: ['stock.changed', 'return.created'] }).expect(200);
      expect(res.body.data).to.deep.include({ id: created.id, url, events: ['stock.changed', 'return.created'], description: 'Before', active: true, created_at: created.created_at });
      expect(res.body.data.updated_at > created.updated_at).to.equal(true);
      const cleared = await world.as('admin').put(`/api/webhooks/${created.id}`).send({ description: null, active: false }).expect(200);
      expect(cleared.body.data).to.deep.include({ url, description: null, active: false });
      expect((await world.as('admin').get(`/api/webhooks/${created.id}`).expect(200)).body.data).to.deep.equal(cleared.body.data);
    });

    it('When active:true is put on a subscription the server switched off, Then disabled_reason is cleared', async () => {
      const created = await create();
      await h.db('webhooks').where('id', created.id).update({ active: false, disabled_reason: 'The endpoint answered 410 Gone.', failing_since: nowDb() });
      const off = await world.as('admin').get(`/api/webhooks/${created.id}`).expect(200);
      expect(off.body.data).to.include({ active: false, disabled_reason: 'The endpoint answered 410 Gone.' });
      const res = await world.as('admin').put(`/api/webhooks/${created.id}`).send({ active: true }).expect(200);
      expect(res.body.data).to.include({ active: true, disabled_reason: null });
      expect(await row(created.id)).to.include({ disabled_reason: null, failing_since: null });
    });
  });

  describe('POST /api/webhooks and PUT /api/webhooks/{id}: refused bodies', () => {
    it('When an event is not in the catalogue, Then it answers 422 on events.0 listing the valid ones, and stores nothing', async () => {
      const url = hookUrl();
      const res = await world.as('admin').post('/api/webhooks').send({ url, events: ['order.shipped'] }).expect(422);
      expect(res.body).to.deep.equal({
        message: 'The given data was invalid.',
        errors: { 'events.0': [`The events.0 field must be one of: ${['*', ...CATALOGUE].join(', ')}.`] },
      });
      expect(await h.db('webhooks').where('url', url).first()).to.equal(undefined);
      const created = await create({ events: ['article.created'] });
      const put = await world.as('admin').put(`/api/webhooks/${created.id}`).send({ events: ['stock.changed', 'nope'] }).expect(422);
      expect(Object.keys(put.body.errors)).to.deep.equal(['events.1']);
      expect(JSON.parse((await row(created.id))!.events as string)).to.deep.equal(['article.created']);
    });

    it('When events mix "*" with event names, Then POST and PUT answer 422 on events saying to use one or the other, and store nothing; "*" twice is "*"', async () => {
      const mixed = { message: 'Use "*" alone for every event, or name the events without "*", not both.' };
      const url = hookUrl();
      for (const events of [['*', 'article.created'], ['stock.changed', '*'], ['article.created', '*', 'article.created']]) {
        await world.as('admin').post('/api/webhooks').send({ url, events }).expect(422, { ...mixed, errors: { events: [mixed.message] } });
      }
      expect(await h.db('webhooks').where('url', url).first()).to.equal(undefined);
      const created = await create({ events: ['article.created'] });
      await world.as('admin').put(`/api/webhooks/${created.id}`).send({ events: ['*', 'stock.changed'], description: 'changed' }).expect(422, { ...mixed, errors: { events: [mixed.message] } });
      expect(await row(created.id)).to.include({ events: '["article.created"]', description: null });
      expect((await create({ events: ['*', '*'] })).events).to.deep.equal(['*']);
    });

    it('When a POST has a refused url and mixed events, Then one 422 names both', async () => {
      const strict = await buildApp({ config: testConfig({ WEBHOOK_ALLOW_HTTP: 'false' }) });
      const res = await api(strict.app, { token: world.users.admin.token, company: world.client.id })
        .post('/api/webhooks').send({ url: 'http://127.0.0.1:9/hooks', events: ['*', 'stock.changed'] }).expect(422);
      expect(res.body.errors).to.deep.equal({
        url: ['The url must use https.'],
        events: ['Use "*" alone for every event, or name the events without "*", not both.'],
      });
    });

    it('When the body tries to set the secret or the company, Then it answers 422 naming them and changes nothing', async () => {
      const url = hookUrl();
      const res = await world.as('admin').post('/api/webhooks').send({ url, events: ['*'], secret: 'whsec_AAAAAAAA', company_id: other.client.id }).expect(422);
      expect(res.body.errors).to.deep.equal({ secret: ['The secret field is not allowed.'], company_id: ['The company_id field is not allowed.'] });
      expect(await h.db('webhooks').where('url', url).first()).to.equal(undefined);
      const created = await create();
      await world.as('admin').put(`/api/webhooks/${created.id}`).send({ secret: 'whsec_AAAAAAAA' }).expect(422);
      expect((await row(created.id))!.secret).to.equal(created.secret);
    });

    it('When url or events are missing or empty, Then it answers 422 naming each', async () => {
      const res = await world.as('admin').post('/api/webhooks').send({ description: 'x' }).expect(422);
      expect(res.body.errors).to.deep.equal({ url: ['The url field is required.'], events: ['The events field is required.'] });
      const empty = await world.as('admin').post('/api/webhooks').send({ url: hookUrl(), events: [] }).expect(422);
      expect(empty.body.errors).to.deep.equal({ events: ['The events field must have at least 1 item.'] });
    });
  });

  describe('DELETE /api/webhooks/{id}', () => {
    it('When a subscription is deleted, Then it answers 204, then 404, and its deliveries are gone', async () => {
      const created = await create();
      await world.as('admin').post(`/api/webhooks/${created.id}/ping`).expect(202);
      expect(await h.db('webhook_deliveries').where('webhook_id', created.id)).to.have.length(1);
      const res = await world.as('admin').delete(`/api/webhooks/${created.id}`).expect(204);
      expect(res.text).to.equal('');
      await world.as('admin').get(`/api/webhooks/${created.id}`).expect(404, { message: `Webhook ${created.id} was not found.` });
      await world.as('admin').delete(`/api/webhooks/${created.id}`).expect(404);
      await world.as('admin').get(`/api/webhooks/${created.id}/deliveries`).expect(404);
      expect(await row(created.id)).to.equal(undefined);
      expect(await h.db('webhook_deliveries').where('webhook_id', created.id)).to.deep.equal([]);
    });
  });

  it("When the provider admin is scoped to the provider, Then it sees and changes the client's subscription, shown with the client's company_id", async () => {
    const created = await create();
    const read = await world.as('providerAdmin').get(`/api/webhooks/${created.id}`).expect(200);
    expect(read.body.data).to.include({ id: created.id, company_id: world.client.id });
    const list = await world.as('providerAdmin').get('/api/webhooks?per_page=100').expect(200);
    expect(list.body.data.map((w: { id: number }) => w.id)).to.include(created.id);
    await world.as('providerAdmin').put(`/api/webhooks/${created.id}`).send({ description: 'By the provider' }).expect(200);
    expect((await row(created.id))!.description).to.equal('By the provider');
  });

  it("When another client's admin or another tenant's admin asks, Then every route answers 404 and nothing changes", async () => {
    const created = await create({ description: 'Mine' });
    const before = await row(created.id);
    for (const agent of [world.as('otherClientAdmin'), other.as('admin'), other.as('providerAdmin')]) {
      await agent.get(`/api/webhooks/${created.id}`).expect(404, { message: `Webhook ${created.id} was not found.` });
      await agent.put(`/api/webhooks/${created.id}`).send({ description: 'Hijacked', rotate_secret: true }).expect(404);
      await agent.delete(`/api/webhooks/${created.id}`).expect(404);
      await agent.get(`/api/webhooks/${created.id}/deliveries`).expect(404);
      await agent.post(`/api/webhooks/${created.id}/ping`).expect(404);
      const list = await agent.get('/api/webhooks?per_page=100').expect(200);
      expect(list.body.data.map((w: { id: number }) => w.id)).not.to.include(created.id);
    }
    expect(await row(created.id)).to.deep.equal(before);
    expect(await h.db('webhook_deliveries').where('webhook_id', created.id)).to.deep.equal([]);
  });

  it("When the provider subscribes in its own scope, Then the subscription is the provider's and its clients' admins do not see it", async () => {
    const created = await create({}, 'providerAdmin');
    expect(created.company_id).to.equal(world.provider.id);
    expect((await row(created.id))!.company_id).to.equal(world.provider.id);
    await world.as('admin').get(`/api/webhooks/${created.id}`).expect(404, { message: `Webhook ${created.id} was not found.` });
    await world.as('admin').put(`/api/webhooks/${created.id}`).send({ active: false }).expect(404);
    const list = await world.as('admin').get('/api/webhooks?per_page=100').expect(200);
    expect(list.body.data.map((w: { id: number }) => w.id)).not.to.include(created.id);
    expect((await row(created.id))!.active).to.be.oneOf([true, 1]);
  });

  it('When X-Company-Id is missing on a write, Then it answers 400; a read uses the primary company', async () => {
    const created = await create();
    const agent = world.as('admin', null);
    const missing = { message: 'The X-Company-Id header is required.' };
    await agent.post('/api/webhooks').send({ url: hookUrl(), events: ['*'] }).expect(400, missing);
    await agent.put(`/api/webhooks/${created.id}`).send({ description: 'x' }).expect(400, missing);
    await agent.delete(`/api/webhooks/${created.id}`).expect(400, missing);
    await agent.post(`/api/webhooks/${created.id}/ping`).expect(400, missing);
    await agent.post(`/api/webhooks/${created.id}/deliveries/1/redeliver`).expect(400, missing);
    expect(await row(created.id)).to.include({ description: null });
    expect(await h.db('webhook_deliveries').where('webhook_id', created.id)).to.deep.equal([]);
    await agent.get(`/api/webhooks/${created.id}`).expect(200);
  });

  it('When an operator or a viewer asks, Then every route answers 403 naming the admin role', async () => {
    const created = await create();
    for (const role of ['operator', 'viewer'] as const) {
      const agent = world.as(role);
      const message = { message: `This action needs the admin role; your role in company ${world.client.name} is ${role}.` };
      await agent.get('/api/webhooks').expect(403, message);
      await agent.post('/api/webhooks').send({ url: hookUrl(), events: ['*'] }).expect(403, message);
      await agent.get(`/api/webhooks/${created.id}`).expect(403, message);
      await agent.put(`/api/webhooks/${created.id}`).send({ rotate_secret: true }).expect(403, message);
      await agent.delete(`/api/webhooks/${created.id}`).expect(403, message);
      await agent.get(`/api/webhooks/${created.id}/deliveries`).expect(403, message);
      await agent.post(`/api/webhooks/${created.id}/ping`).expect(403, message);
    }
    expect((await row(created.id))!.secret).to.equal(created.secret);
  });

  it('When the webhooks module is off, Then an admin gets 403 naming it and nothing is stored', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['webhooks'] });
    const message = { message: `The webhooks module is not active for company ${off.client.name}.` };
    const url = hookUrl();
    await off.as('admin').post('/api/webhooks').send({ url, events: ['*'] }).expect(403, message);
    await off.as('admin').get('/api/webhooks').expect(403, message);
    expect(await h.db('webhooks').where('company_id', off.client.id)).to.deep.equal([]);
  });
});

describe('Webhook subscriptions: the most a company may own', () => {
  const MAX = 3;
  let h: Harness;
  let world: World;

  before(async () => {
    h = await buildApp({ config: testConfig({ WEBHOOK_MAX_SUBSCRIPTIONS: String(MAX) }) });
    world = await createWorld(h.app, h.db);
  });

  const tooMany = {
    message: `The company already has ${MAX} webhook subscriptions, the most it may have. Delete one it no longer needs (DELETE /api/webhooks/{id}), or widen one's events, instead of adding another.`,
  };
  const subscribe = (actor: Parameters<World['as']>[0] = 'admin', company?: number) => world.as(actor, company).post('/api/webhooks').send({ url: hookUrl(), events: ['*'] });

  it(`When a company owns WEBHOOK_MAX_SUBSCRIPTIONS (${MAX}) subscriptions, Then another answers 422 on url saying so and stores nothing; after a delete it may add one again`, async () => {
    const ids: number[] = [];
    for (let i = 0; i < MAX; i++) ids.push((await subscribe().expect(201)).body.data.id);
    // Switched off, they still count: switching one on again must not pass the cap.
    await world.as('admin').put(`/api/webhooks/${ids[0]}`).send({ active: false }).expect(200);
    const res = await subscribe().expect(422);
    expect(res.body).to.deep.equal({ ...tooMany, errors: { url: [tooMany.message] } });
    expect(await h.db('webhooks').where('company_id', world.client.id)).to.have.length(MAX);

    await world.as('admin').delete(`/api/webhooks/${ids[1]}`).expect(204);
    await subscribe().expect(201);
    await subscribe().expect(422);
  });

  it("When a provider's clients own subscriptions, Then they count for the client, not for the provider in its own scope", async () => {
    for (let i = 0; i < MAX; i++) await subscribe('otherClientAdmin').expect(201);
    await subscribe('providerAdmin', world.otherClient.id).expect(422);
    for (let i = 0; i < MAX; i++) await subscribe('providerAdmin', world.provider.id).expect(201);
    await subscribe('providerAdmin', world.provider.id).expect(422, { ...tooMany, errors: { url: [tooMany.message] } });
  });

  it(`When ${MAX + 7} creates of a new company race, Then exactly ${MAX} are stored and the others answer 422`, async () => {
    const fresh = await createWorld(h.app, h.db);
    const statuses = await Promise.all(Array.from({ length: MAX + 7 }, () => fresh.as('admin').post('/api/webhooks').send({ url: hookUrl(), events: ['*'] }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).to.have.length(MAX);
    expect(statuses.filter((s) => s === 422)).to.have.length(7);
    expect(await h.db('webhooks').where('company_id', fresh.client.id)).to.have.length(MAX);
  });
});
