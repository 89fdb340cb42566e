/**
 * GET /api/returns (a page of the returns in scope, newest first: without parameters the newest
 * 100, as before, now with `links` and `meta`) and GET
 * /api/returns/{id} (404 outside the scope); with the returns module off, all three return
 * routes answer 403.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';

type Return = { id: number; client_3pl_id: number; internal_code: string | null };

describe('GET /api/returns and GET /api/returns/{id}', () => {
  let h: Harness;
  let world: World;
  let stranger: World;
  /** The world's client's returns, oldest first. */
  const mine: Return[] = [];
  let sibling: Return;
  let foreign: Return;

  const line = (articleId: number) => [{ article_id: articleId, um3pl: 'BUC', quantity_um3pl: 1 }];

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    stranger = await createWorld(h.app, h.db);
    const agent = world.as('operator');
    for (let i = 0; i < 101; i++) {
      const res = await agent
        .post('/api/returns')
        .send({ partner_id: world.partners.client, warehouse_id: world.warehouses[i % 2], internal_code: `RET-LIST-${i}`, items: line(world.articles.client.id) })
        .expect(201);
      mine.push(res.body.data);
    }
    sibling = (
      await world
        .as('otherClientAdmin')
        .post('/api/returns')
        .send({ partner_id: world.partners.otherClientCustomer, warehouse_id: world.warehouses[0], internal_code: 'RET-SIBLING', items: line(world.articles.otherClient.id) })
        .expect(201)
    ).body.data;
    foreign = (
      await stranger
        .as('operator')
        .post('/api/returns')
        .send({ partner_id: stranger.partners.client, warehouse_id: stranger.warehouses[0], internal_code: 'RET-FOREIGN', items: line(stranger.articles.client.id) })
        .expect(201)
    ).body.data;
  });

  it('When a client lists returns, Then it gets its newest 100, newest first, and nothing of others, as a page', async () => {
    const res = await world.as('viewer').get('/api/returns').expect(200);
    expect(Object.keys(res.body)).to.deep.equal(['data', 'links', 'meta']);
    expect(res.body.meta).to.include({ current_page: 1, per_page: 100, total: 101, last_page: 2, from: 1, to: 100 });
    expect(res.body.links.next).to.equal('http://api.test/api/returns?page=2');
    const data: Return[] = res.body.data;
    expect(data).to.have.length(100);
    expect(data.map((r) => r.id)).to.deep.equal(mine.slice(1).map((r) => r.id).reverse());
    expect(data.map((r) => r.internal_code).slice(0, 2)).to.deep.equal(['RET-LIST-100', 'RET-LIST-99']);
    expect(data[99]!.internal_code).to.equal('RET-LIST-1');
    expect(data.every((r) => r.client_3pl_id === world.client.id)).to.equal(true);
    expect(data[0]).to.deep.equal(mine[100]);
  });

  it('When the second page or a smaller page is asked for, Then it follows on, oldest last; per_page above 100 is a 422', async () => {
    const second = await world.as('viewer').get('/api/returns?page=2').expect(200);
    expect(second.body.data).to.deep.equal([mine[0]]);
    expect(second.body.meta).to.include({ current_page: 2, from: 101, to: 101, total: 101 });
    expect(second.body.links).to.include({ prev: 'http://api.test/api/returns?page=1', next: null });
    const small = await world.as('viewer').get('/api/returns?per_page=2&page=3').expect(200);
    expect(small.body.data.map((r: Return) => r.internal_code)).to.deep.equal(['RET-LIST-96', 'RET-LIST-95']);
    const big = await world.as('viewer').get('/api/returns?per_page=101').expect(422);
    expect(big.body.errors).to.deep.equal({ per_page: ['The per_page field must not be greater than 100.'] });
  });

  it('When the provider lists returns, Then its newest 100 span its clients; another tenant sees only its own', async () => {
    const provider: Return[] = (await world.as('providerViewer').get('/api/returns').expect(200)).body.data;
    expect(provider).to.have.length(100);
    expect(provider[0]).to.deep.equal(sibling);
    expect(provider.slice(1).map((r) => r.id)).to.deep.equal(mine.slice(2).map((r) => r.id).reverse());

    const scoped: Return[] = (await world.as('providerViewer', world.otherClient.id).get('/api/returns').expect(200)).body.data;
    expect(scoped).to.deep.equal([sibling]);
    const other: Return[] = (await world.as('otherClientAdmin').get('/api/returns').expect(200)).body.data;
    expect(other).to.deep.equal([sibling]);
    const strangers: Return[] = (await stranger.as('viewer').get('/api/returns').expect(200)).body.data;
    expect(strangers).to.deep.equal([foreign]);
  });

  describe('GET /api/returns/{id}', () => {
    it('When a return is read in scope, Then it is the return as created', async () => {
      const res = await world.as('viewer').get(`/api/returns/${mine[0]!.id}`).expect(200);
      expect(res.body).to.deep.equal({ data: mine[0] });
      const byProvider = await world.as('providerViewer').get(`/api/returns/${sibling.id}`).expect(200);
      expect(byProvider.body).to.deep.equal({ data: sibling });
    });

    it("When a return of another client or tenant, or an unknown id, is read, Then 404", async () => {
      for (const [agent, id] of [
        [world.as('viewer'), sibling.id],
        [world.as('viewer'), foreign.id],
        [world.as('providerViewer'), foreign.id],
        [world.as('otherClientAdmin'), mine[0]!.id],
        [world.as('viewer'), 99_999_999],
      ] as const) {
        const res = await agent.get(`/api/returns/${id}`).expect(404);
        expect(res.body).to.deep.equal({ message: `Return ${id} was not found.` });
      }
    });
  });

  it('When the returns module is off, Then listing, reading and creating returns answer 403 and nothing is created', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['returns'] });
    const message = { message: `The returns module is not active for company ${off.client.name}.` };
    const count = async () => Number((await h.db('returns').where('company_id', off.client.id).count({ n: '*' }).first())!.n);
    await off.as('viewer').get('/api/returns').expect(403, message);
    await off.as('viewer').get(`/api/returns/${mine[0]!.id}`).expect(403, message);
    await off
      .as('operator')
      .post('/api/returns')
      .send({ partner_id: off.partners.client, warehouse_id: off.warehouses[0], items: line(off.articles.client.id) })
      .expect(403, message);
    // 403 comes before the body is validated.
    await off.as('operator').post('/api/returns').send({}).expect(403, message);
    expect(await count()).to.equal(0);
    // Sales orders (the outbound module) still answer.
    await off.as('viewer').get('/api/sales-orders').expect(200);
  });
});
