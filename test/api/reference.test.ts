/** GET /api/companies, /api/clients, /api/partners, /api/warehouses and their {id} routes. */
import { expect } from 'chai';
import { harness, type Harness, TEST_APP_URL } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import * as build from '../../db/seeds/builders.js';

const ids = (res: { body: { data: Array<{ id: number }> } }): number[] => res.body.data.map((row) => row.id);

describe('GET /api/companies', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When a provider member asks, Then it answers the provider and its clients', async () => {
    const res = await world.as('providerAdmin').get('/api/companies').expect(200);
    expect(ids(res)).to.deep.equal([world.provider.id, world.client.id, world.otherClient.id]);
    expect(res.body.data[1]).to.include({ name: world.client.name, type: 'client', provider_id: world.provider.id });
    expect(res.body.data[0]).to.include({ type: 'provider', provider_id: null });
  });

  it('When a client member asks, Then it answers its own company only', async () => {
    const res = await world.as('operator').get('/api/companies').expect(200);
    expect(ids(res)).to.deep.equal([world.client.id]);
  });

  it('When a super-admin asks, Then it answers every company', async () => {
    const res = await world.as('superAdmin').get('/api/companies?per_page=100').expect(200);
    expect(res.body.meta.total).to.be.at.least(3);
    const all = await h.db('companies').count({ n: '*' }).first();
    expect(res.body.meta.total).to.equal(Number(all!.n));
  });
});

describe('GET /api/clients', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When scoped to the provider, Then it lists both clients', async () => {
    expect(ids(await world.as('providerAdmin').get('/api/clients').expect(200))).to.deep.equal([world.client.id, world.otherClient.id]);
  });

  it('When scoped to a client, Then it lists that client alone', async () => {
    expect(ids(await world.as('viewer').get('/api/clients').expect(200))).to.deep.equal([world.client.id]);
  });

  it('When searching, Then it matches part of the name or VAT code', async () => {
    const byName = await world.as('providerAdmin').get(`/api/clients?search=${encodeURIComponent(world.otherClient.name.slice(0, 12))}`).expect(200);
    expect(ids(byName)).to.deep.equal([world.otherClient.id]);
  });

  describe('GET /api/clients/{id}', () => {
    it('When reading a client in scope, Then it answers it; the sibling or the provider itself is 404', async () => {
      const res = await world.as('providerAdmin').get(`/api/clients/${world.client.id}`).expect(200);
      expect(res.body.data).to.include({ id: world.client.id, name: world.client.name, type: 'client' });
      await world.as('admin').get(`/api/clients/${world.otherClient.id}`).expect(404, { message: `Client ${world.otherClient.id} was not found.` });
      await world.as('providerAdmin').get(`/api/clients/${world.provider.id}`).expect(404);
    });
  });
});

describe('GET /api/partners', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    for (let i = 0; i < 3; i++) {
      await build.insertPartner(h.db, { company_id: world.client.id, type: 'client', name: `Shop ${i} 100%_off`, code: `SHOP-${i}` });
    }
  });

  it('When filtered by type, Then only partners of that type come back', async () => {
    const res = await world.as('admin').get('/api/partners?type=supplier').expect(200);
    expect(ids(res)).to.deep.equal([world.partners.supplier]);
    expect(res.body.data[0]).to.include({ type: 'supplier', client_3pl_id: world.client.id, active: true });
  });

  it('When searching with LIKE wildcards, Then they match literally', async () => {
    const res = await world.as('admin').get(`/api/partners?search=${encodeURIComponent('100%_off')}`).expect(200);
    expect(res.body.meta.total).to.equal(3);
    const none = await world.as('admin').get(`/api/partners?search=${encodeURIComponent('%')}`).expect(200);
    expect(none.body.meta.total).to.equal(3);
    const code = await world.as('admin').get('/api/partners?search=SHOP-1').expect(200);
    expect(code.body.data.map((p: { code: string }) => p.code)).to.deep.equal(['SHOP-1']);
  });

  it('When paging, Then meta and links follow the Laravel paginator and keep the other parameters', async () => {
    const res = await world.as('admin').get('/api/partners?type=client&per_page=2&page=2').expect(200);
    expect(res.body.meta).to.deep.equal({ current_page: 2, from: 3, last_page: 2, path: `${TEST_APP_URL}/api/partners`, per_page: 2, to: 4, total: 4 });
    expect(res.body.links).to.deep.equal({
      first: `${TEST_APP_URL}/api/partners?type=client&per_page=2&page=1`,
      last: `${TEST_APP_URL}/api/partners?type=client&per_page=2&page=2`,
      prev: `${TEST_APP_URL}/api/partners?type=client&per_page=2&page=1`,
      next: null,
    });
  });

  it('When the page is past the end, Then data is empty and from/to are null', async () => {
    const res = await world.as('admin').get('/api/partners?page=9').expect(200);
    expect(res.body.data).to.deep.equal([]);
    expect(res.body.meta).to.include({ current_page: 9, from: null, to: null, total: 5, last_page: 1 });
  });

  it('When per_page is above 100 or page below 1, Then it answers 422 on that parameter', async () => {
    const res = await world.as('admin').get('/api/partners?per_page=101&page=0').expect(422);
    expect(res.body.errors).to.deep.equal({
      per_page: ['The per_page field must not be greater than 100.'],
      page: ['The page field must be at least 1.'],
    });
  });

  describe('GET /api/partners/{id}', () => {
    it('When reading a partner, Then it answers every field of it', async () => {
      const res = await world.as('admin').get(`/api/partners/${world.partners.client}`).expect(200);
      expect(res.body.data).to.include({ id: world.partners.client, type: 'client', client_3pl_id: world.client.id, vat_code: null });
    });
  });
});

describe('GET /api/warehouses', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  it("When a client member lists warehouses, Then it sees its provider's", async () => {
    const res = await world.as('viewer').get('/api/warehouses').expect(200);
    expect(ids(res)).to.deep.equal(world.warehouses);
    expect(res.body.data[0]).to.include({ company_id: world.provider.id, active: true });
  });

  describe('GET /api/warehouses/{warehouseId}', () => {
    it("When reading a warehouse of its provider, Then it answers; another provider's is 404", async () => {
      await world.as('viewer').get(`/api/warehouses/${world.warehouses[1]}`).expect(200);
      await world.as('viewer').get(`/api/warehouses/${other.warehouses[0]}`).expect(404, { message: `Warehouse ${other.warehouses[0]} was not found.` });
    });
  });
});
