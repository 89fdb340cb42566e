/**
 * Article ids: every id fits a signed 32-bit integer; an id a client chooses is honoured when free
 * and never moves the ids the service assigns to anyone; a taken id is the same 422 whichever
 * company holds it. On a database of its own: the ids chosen here (up to 2147483647) would make
 * other suites' "a free id above the highest" overflow.
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { isolatedHarness, type Isolated } from '../helpers/harness.js';
import { countEvents } from '../fixtures/probes.js';

const MAX = 2147483647;

describe('POST /api/articles with and without an id', () => {
  let h: Isolated;
  let acme: World;
  let globex: World;

  before(async () => {
    h = await isolatedHarness();
    acme = await createWorld(h.app, h.db);
    globex = await createWorld(h.app, h.db);
  });

  after(async () => {
    await h?.close();
  });

  const create = (world: World, extra: Record<string, unknown> = {}) =>
    world.as('operator').post('/api/articles').send({ article_code: unique('ID-'), description: 'd', um3pl: 'BUC', ...extra });
  const highestId = async () => Number((await h.db('articles').max({ m: 'id' }).first())!.m);

  it('When one company creates article 2147483000 and then 2147483647, Then the next article of another company still gets a small id and its GraphQL articles query answers', async () => {
    const before = (await create(acme).expect(201)).body.data.id as number;
    await create(globex, { id: 2147483000 }).expect(201);
    const next = (await create(acme).expect(201)).body.data.id as number;
    expect(next).to.equal(before + 1);
    await create(globex, { id: MAX }).expect(201);
    const after = (await create(acme).expect(201)).body.data.id as number;
    expect(after).to.equal(next + 1);
    const graphql = await acme.as('viewer').post('/graphql').send({ query: '{ articles(limit: 100) { id article_code } }' }).expect(200);
    expect(graphql.body.errors).to.equal(undefined);
    expect(graphql.body.data.articles.map((a: { id: number }) => a.id)).to.include.members([before, next, after]);
    const globexRead = await globex.as('viewer').post('/graphql').send({ query: '{ articles(limit: 100) { id } }' }).expect(200);
    expect(globexRead.body.errors).to.equal(undefined);
    expect(globexRead.body.data.articles.map((a: { id: number }) => a.id)).to.include.members([2147483000, MAX]);
  });

  it('When the service reaches ids clients chose ahead of it, Then it skips them, once, and carries on after them', async () => {
    const last = (await create(acme).expect(201)).body.data.id as number;
    for (const id of [last + 1, last + 2, last + 3, last + 5]) await create(globex, { id }).expect(201);
    const skipped = (await create(acme).expect(201)).body.data.id as number;
    expect(skipped).to.equal(last + 4);
    const afterRun = (await create(acme).expect(201)).body.data.id as number;
    expect(afterRun).to.equal(last + 6);
    expect((await create(acme).expect(201)).body.data.id).to.equal(last + 7);
  });

  it('When a chosen id is taken, Then it answers the same 422 on id whichever company holds it, and records nothing', async () => {
    const own = (await create(acme).expect(201)).body.data.id as number;
    const theirs = (await create(globex).expect(201)).body.data.id as number;
    const events = () => countEvents(h.db);
    const eventsBefore = await events();
    const answers = [];
    for (const id of [own, theirs]) answers.push((await create(acme, { id }).expect(422)).body);
    expect(answers[0]).to.deep.equal({ message: 'The id has already been taken.', errors: { id: ['The id has already been taken.'] } });
    expect(answers[1]).to.deep.equal(answers[0]);
    expect(await events()).to.equal(eventsBefore);
  });

  it('When two creates race for the same free id, Then one gets it and the other is the 422 on id', async () => {
    const id = (await highestId()) > 2_000_000_000 ? 1_500_000_000 + Math.floor(Math.random() * 1000) : (await highestId()) + 100;
    const results = await Promise.all([create(acme, { id }), create(globex, { id })]);
    expect(results.map((r) => r.status).sort(), JSON.stringify(results.map((r) => r.body))).to.deep.equal([201, 422]);
    expect(results.find((r) => r.status === 422)!.body.errors).to.deep.equal({ id: ['The id has already been taken.'] });
  });

  it('When 30 articles are created at once while other creates choose the ids just ahead of the service, Then every service create succeeds with an id of its own, and a chosen id is either honoured or the 422 on id', async function () {
    this.timeout(60_000);
    const last = (await create(acme).expect(201)).body.data.id as number;
    const chosen = Array.from({ length: 10 }, (_, i) => last + 2 + i * 2);
    const results = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => create(i % 2 ? acme : globex)),
      ...chosen.map((id) => create(globex, { id })),
    ]);
    const [served, picked] = [results.slice(0, 30), results.slice(30)];
    expect(served.filter((r) => r.status !== 201).map((r) => [r.status, r.body])).to.deep.equal([]);
    picked.forEach((r, i) => {
      if (r.status === 201) expect(r.body.data.id).to.equal(chosen[i]);
      else expect([r.status, r.body.errors]).to.deep.equal([422, { id: ['The id has already been taken.'] }]);
    });
    const ids = results.filter((r) => r.status === 201).map((r) => r.body.data.id as number);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(Math.max(...ids)).to.be.lessThan(last + 100);
    const stored = await h.db('articles').whereIn('id', ids).count({ n: '*' }).first();
    expect(Number(stored!.n)).to.equal(ids.length);
  });
});

describe('Ids beyond a 32-bit integer', () => {
  let h: Isolated;
  let world: World;

  before(async () => {
    h = await isolatedHarness();
    world = await createWorld(h.app, h.db);
  });

  after(async () => {
    await h?.close();
  });

  const tooBig = (field: string) => ({ [field]: [`The ${field} field must not be greater than ${MAX}.`] });

  it('When a path id, a query filter, a header or a body id is 2147483648, Then it answers 422 naming it', async () => {
    for (const path of ['/api/articles/', '/api/sales-orders/', '/api/purchase-orders/', '/api/returns/', '/api/partners/']) {
      const res = await world.as('operator').get(`${path}${MAX + 1}`).expect(422);
      expect(res.body.errors, path).to.deep.equal(tooBig('id'));
    }
    for (const name of ['article_id', 'warehouse_id']) {
      expect((await world.as('operator').get(`/api/stock?${name}=${MAX + 1}`).expect(422)).body.errors).to.deep.equal(tooBig(name));
    }
    expect((await world.as('operator').get(`/api/articles/sync?cursor=${MAX + 1}`).expect(422)).body.errors).to.deep.equal(tooBig('cursor'));
    expect((await world.as('operator', MAX + 1).get('/api/articles').expect(422)).body.errors).to.deep.equal({ 'X-Company-Id': [`The X-Company-Id header must be a positive integer of at most ${MAX}.`] });
    const po = await world.as('operator').post('/api/purchase-orders')
      .send({ partner_id: MAX + 1, internal_code: unique('PO-'), items: [{ article_id: MAX + 1, um3pl: 'BUC', quantity_um3pl: 1 }] }).expect(422);
    expect(po.body.errors).to.deep.equal({ ...tooBig('partner_id'), 'items.0.article_id': [`The items.0.article_id field must not be greater than ${MAX}.`] });
  });
});
