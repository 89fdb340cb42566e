/** X-Company-Id: who may act for which company, and what each scope sees. */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createUser, createWorld, type World } from '../helpers/factories.js';
import { api } from '../helpers/api.js';

describe('Company scope (X-Company-Id)', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const partnerClients = async (agent: ReturnType<World['as']>): Promise<number[]> => {
    const res = await agent.get('/api/partners?per_page=100').expect(200);
    return [...new Set<number>(res.body.data.map((p: { client_3pl_id: number }) => p.client_3pl_id))].sort();
  };

  it('When a provider member scopes to the provider, Then it sees the data of all its clients', async () => {
    expect(await partnerClients(world.as('providerAdmin'))).to.deep.equal([world.client.id, world.otherClient.id].sort());
  });

  it('When a provider member scopes to one of its clients, Then it sees only that client', async () => {
    expect(await partnerClients(world.as('providerAdmin', world.client.id))).to.deep.equal([world.client.id]);
  });

  it('When a client member sends no X-Company-Id, Then its primary company is the scope', async () => {
    expect(await partnerClients(world.as('admin', null))).to.deep.equal([world.client.id]);
  });

  it('When a super-admin sends no X-Company-Id, Then it reads across every company', async () => {
    for (const id of [world.partners.supplier, world.partners.otherClientSupplier, other.partners.supplier]) {
      await world.as('superAdmin', null).get(`/api/partners/${id}`).expect(200);
    }
    const total = await h.db('partners').count({ n: '*' }).first();
    const res = await world.as('superAdmin', null).get('/api/partners').expect(200);
    expect(res.body.meta.total).to.equal(Number(total!.n));
  });

  it('When a super-admin sends X-Company-Id, Then it acts for that company only', async () => {
    expect(await partnerClients(world.as('superAdmin', other.otherClient.id))).to.deep.equal([other.otherClient.id]);
  });

  it('When a client member names its sibling client, Then it answers 403', async () => {
    await world.as('admin', world.otherClient.id).get('/api/partners').expect(403, { message: `You do not have access to company ${world.otherClient.id}.` });
  });

  it('When a member names another provider or a company that does not exist, Then both answer the same 403', async () => {
    await world.as('providerAdmin', other.provider.id).get('/api/partners').expect(403, { message: `You do not have access to company ${other.provider.id}.` });
    await world.as('providerAdmin', 2_000_000_000).get('/api/partners').expect(403, { message: 'You do not have access to company 2000000000.' });
  });

  for (const bad of ['abc', '0', '-1', '1.5', '00', '2147483648', '9999999999', '99999999999']) {
    it(`When X-Company-Id is "${bad}", Then it answers 422 on the header`, async () => {
      const res = await world.as('providerAdmin', bad as never).get('/api/partners').expect(422);
      expect(res.body.errors).to.deep.equal({ 'X-Company-Id': ['The X-Company-Id header must be a positive integer of at most 2147483647.'] });
    });
  }

  it('When a write requires X-Company-Id and it is missing, Then it answers 400 before any role or body check', async () => {
    await world.as('viewer', null).post('/api/articles').send({}).expect(400, { message: 'The X-Company-Id header is required.' });
  });

  it('When a provider viewer reads, Then it may; when it writes, Then it answers 403', async () => {
    await world.as('providerViewer', world.client.id).get('/api/partners').expect(200);
    const res = await world.as('providerViewer', world.client.id).post('/api/articles').send({}).expect(403);
    expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
  });

  it('When a user belongs to no company and sends no X-Company-Id, Then it answers 403', async () => {
    const loner = await createUser(h.db, {});
    await api(h.app, { token: loner.token }).get('/api/partners').expect(403, { message: 'You are not a member of any company.' });
  });
});
