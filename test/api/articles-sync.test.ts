/** GET /api/articles/sync: the keyset sync by id, with updated_since. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import type { Api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { nowDb } from '../../src/kernel/time.js';

interface SyncPage {
  ids: number[];
  next: number | null;
}

async function sync(agent: Api, query: string): Promise<SyncPage> {
  const res = await agent.get(`/api/articles/sync${query ? `?${query}` : ''}`).expect(200);
  expect(Object.keys(res.body).sort()).to.deep.equal(['data', 'meta']);
  return { ids: res.body.data.map((a: { id: number }) => a.id), next: res.body.meta.next_cursor };
}

/** Follows next_cursor from `from` to the end; answers every id seen, in order, and the number of pages. */
async function walk(agent: Api, query: string, from = 0): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let cursor: number | null = from;
  let pages = 0;
  while (cursor !== null) {
    const page = await sync(agent, `${query}&cursor=${cursor}`);
    ids.push(...page.ids);
    cursor = page.next;
    pages += 1;
    expect(pages).to.be.below(50);
  }
  return { ids, pages };
}

const asc = (values: number[]): number[] => [...values].sort((a, b) => a - b);

describe('GET /api/articles/sync', () => {
  let h: Harness;
  let world: World;
  let clientIds: number[];
  let otherClientIds: number[];

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    clientIds = [world.articles.client.id];
    otherClientIds = [world.articles.otherClient.id];
    for (let i = 0; i < 4; i++) {
      clientIds.push(await build.insertArticle(h.db, { company_id: world.client.id, article_code: unique(`S${i}-`), description: `Sync ${i}`, um3pl: 'BUC' }));
      if (i < 2) otherClientIds.push(await build.insertArticle(h.db, { company_id: world.otherClient.id, article_code: unique(`O${i}-`), description: `Other ${i}`, um3pl: 'KG' }));
    }
    clientIds = asc(clientIds);
  });

  it("When scoped to a client without parameters, Then it answers that client's articles by id ascending and a null next_cursor", async () => {
    const res = await world.as('viewer').get('/api/articles/sync').expect(200);
    expect(res.body.data.map((a: { id: number }) => a.id)).to.deep.equal(clientIds);
    expect(res.body.meta).to.deep.equal({ next_cursor: null });
    expect(res.body.data[0]).to.include({ id: world.articles.client.id, client_3pl_id: world.client.id, article_code: world.articles.client.code, active: true, um3pl_barcode: null, barcode: null });
  });

  it('When paging by 2, Then next_cursor is the last id of each page and null on the last', async () => {
    const agent = world.as('viewer');
    expect(await sync(agent, 'per_page=2')).to.deep.equal({ ids: clientIds.slice(0, 2), next: clientIds[1] });
    expect(await sync(agent, `per_page=2&cursor=${clientIds[1]}`)).to.deep.equal({ ids: clientIds.slice(2, 4), next: clientIds[3] });
    expect(await sync(agent, `per_page=2&cursor=${clientIds[3]}`)).to.deep.equal({ ids: clientIds.slice(4), next: null });
  });

  it('When a page ends exactly at the last row, Then next_cursor is null', async () => {
    const agent = world.as('viewer');
    expect(await sync(agent, 'per_page=5')).to.deep.equal({ ids: clientIds, next: null });
    expect(await sync(agent, `per_page=2&cursor=${clientIds[2]}`)).to.deep.equal({ ids: clientIds.slice(3), next: null });
    expect(await sync(agent, 'per_page=4')).to.deep.equal({ ids: clientIds.slice(0, 4), next: clientIds[3] });
  });

  it('When the cursor is at or past the last id, Then data is empty and next_cursor null', async () => {
    expect(await sync(world.as('viewer'), `cursor=${clientIds[4]}`)).to.deep.equal({ ids: [], next: null });
    expect(await sync(world.as('viewer'), 'cursor=2000000000')).to.deep.equal({ ids: [], next: null });
  });

  it('When walking the cursor to the end scoped to the provider, Then every article of both clients comes exactly once, in order', async () => {
    const { ids, pages } = await walk(world.as('providerAdmin'), 'per_page=3');
    expect(ids).to.deep.equal(asc([...clientIds, ...otherClientIds]));
    expect(pages).to.equal(3);
  });

  it('When an article changes between pages, Then the walk still yields each article once', async () => {
    const agent = world.as('viewer');
    const first = await sync(agent, 'per_page=2');
    await world.as('operator').put(`/api/articles/${clientIds[0]}`).send({ description: 'Changed mid-walk' }).expect(200);
    await world.as('operator').put(`/api/articles/${clientIds[4]}`).send({ description: 'Changed mid-walk too' }).expect(200);
    const rest = await walk(agent, 'per_page=2', first.next!);
    expect([...first.ids, ...rest.ids]).to.deep.equal(clientIds);
  });

  it('When an article is deactivated, Then the sync shows it with active false', async () => {
    const target = otherClientIds[1]!;
    const code = (await h.db('articles').where('id', target).first()).article_code as string;
    await world.as('otherClientAdmin').patch(`/api/articles/by-code/${code}`).send({ active: false }).expect(200);
    const res = await world.as('otherClientAdmin').get('/api/articles/sync').expect(200);
    const shown = res.body.data.find((a: { id: number }) => a.id === target);
    expect(shown).to.include({ id: target, active: false });
    expect(res.body.data.filter((a: { active: boolean }) => a.active).map((a: { id: number }) => a.id)).to.deep.equal(otherClientIds.filter((id) => id !== target));
  });

  it('When X-Company-Id is missing, Then it answers 400', async () => {
    await world.as('viewer', null).get('/api/articles/sync').expect(400, { message: 'The X-Company-Id header is required.' });
  });

  it('When the articles module is off, Then it answers 403', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['articles'] });
    await off.as('viewer').get('/api/articles/sync').expect(403, { message: `The articles module is not active for company ${off.client.name}.` });
  });

  const bad: Array<[string, string, Record<string, string[]>]> = [
    ['a cursor that is not a number', 'cursor=abc', { cursor: ['The cursor field must be an integer.'] }],
    ['a negative cursor', 'cursor=-1', { cursor: ['The cursor field must be at least 0.'] }],
    ['per_page=501', 'per_page=501', { per_page: ['The per_page field must not be greater than 500.'] }],
    ['per_page=0', 'per_page=0', { per_page: ['The per_page field must be at least 1.'] }],
    ['an updated_since that is not a date-time', 'updated_since=yesterday', { updated_since: ['The updated_since field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'] }],
    ['an impossible date', 'updated_since=2026-02-30T00:00:00Z', { updated_since: ['The updated_since field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'] }],
    ['an unknown parameter', 'page=2', { page: ['The page field is not allowed.'] }],
    // In UTC the year 10000: its stored text would sort before every time, and every article come.
    ['an updated_since past the year 9999 in UTC', 'updated_since=9999-12-31T23:59:59-01:00', { updated_since: ['The updated_since field must be a time of the years 0000 to 9999 in UTC.'] }],
  ];
  for (const [what, query, errors] of bad) {
    it(`When the query has ${what}, Then it answers 422 on that parameter`, async () => {
      const res = await world.as('viewer').get(`/api/articles/sync?${query}`).expect(422);
      expect(res.body.errors).to.deep.equal(errors);
    });
  }
});

/** One world for the two describes below: updated_since works on its client, page sizes on its other client. */
let timed: Promise<World> | undefined;
const timedWorld = (h: Harness): Promise<World> => (timed ??= createWorld(h.app, h.db));

describe('GET /api/articles/sync (updated_since)', () => {
  let h: Harness;
  let world: World;
  const ids: Record<string, number> = {};

  before(async () => {
    h = await harness();
    world = await timedWorld(h);
    const times: Array<[string, string]> = [
      ['old', '2020-01-01 00:00:00.000000'],
      ['boundary', '2022-03-04 05:06:07.123456'],
      ['older', '2020-06-01 00:00:00.000000'],
      ['beforeNewYear', '2025-12-31 23:59:59.999999'],
      ['newYear', '2026-01-01 00:00:00.000000'],
    ];
    ids.recent = world.articles.client.id;
    for (const [name, time] of times) {
      ids[name] = await build.insertArticle(h.db, { company_id: world.client.id, article_code: unique(`${name}-`), description: name, um3pl: 'BUC' });
      await h.db('articles').where('id', ids[name]).update({ updated_at: time });
    }
  });

  const since = async (value: string, extra = ''): Promise<SyncPage> => sync(world.as('viewer'), `updated_since=${value}${extra}`);

  it('When updated_since is after some rows, Then those rows are left out', async () => {
    expect((await since('2021-01-01T00:00:00Z')).ids).to.deep.equal(asc([ids.recent!, ids.boundary!, ids.beforeNewYear!, ids.newYear!]));
    expect((await since('2019-01-01T00:00:00Z')).ids).to.have.length(6);
    expect((await since('2100-01-01T00:00:00Z')).ids).to.deep.equal([]);
  });

  it('When updated_since equals a row\'s time to the microsecond, Then that row is included; a microsecond later it is not', async () => {
    expect((await since('2022-03-04T05:06:07.123456Z')).ids).to.include(ids.boundary);
    expect((await since('2022-03-04T05:06:07.123455Z')).ids).to.include(ids.boundary);
    expect((await since('2022-03-04T05:06:07.123457Z')).ids).to.not.include(ids.boundary);
    expect((await since('2022-03-04T05:06:07.123457Z')).ids).to.include(ids.beforeNewYear);
  });

  it('When updated_since has an offset and unencoded colons, Then it is read as that instant', async () => {
    const plusTwo = await since('2026-01-01T02:00:00%2B02:00');
    expect(plusTwo.ids).to.deep.equal(asc([ids.recent!, ids.newYear!]));
    const minusOne = await since('2025-12-31T22:59:59.999999-01:00');
    expect(minusOne.ids).to.deep.equal(asc([ids.recent!, ids.beforeNewYear!, ids.newYear!]));
    const compact = await since('2026-01-01T00:00:00.000001%2B00:00');
    expect(compact.ids).to.deep.equal([ids.recent]);
  });

  it('When updated_since carries its + offset unencoded (the parameter allows reserved characters), Then it is read as that offset', async () => {
    const res = await world.as('viewer').get('/api/articles/sync?updated_since=2026-01-01T02:00:00+02:00').expect(200);
    expect(res.body.data.map((a: { id: number }) => a.id)).to.deep.equal(asc([ids.recent!, ids.newYear!]));
  });

  it('When filtering and paging, Then next_cursor is null once no matching row follows, even if other rows do', async () => {
    const first = await since('2021-01-01T00:00:00Z', '&per_page=3');
    expect(first).to.deep.equal({ ids: asc([ids.recent!, ids.boundary!, ids.beforeNewYear!]), next: asc([ids.recent!, ids.boundary!, ids.beforeNewYear!])[2] });
    expect(await since('2021-01-01T00:00:00Z', `&per_page=3&cursor=${first.next}`)).to.deep.equal({ ids: [ids.newYear], next: null });
    expect(await since('2022-03-04T05:06:07.123457Z', `&per_page=1&cursor=${ids.beforeNewYear}`)).to.deep.equal({ ids: [ids.newYear], next: null });
  });

  it('When a row is updated through the API, Then a sync since just before the change finds it', async () => {
    const mark = nowDb().replace(' ', 'T') + 'Z';
    await world.as('operator').put(`/api/articles/${ids.old}`).send({ description: 'Touched' }).expect(200);
    const page = await since(mark);
    expect(page.ids).to.include(ids.old);
    expect(page.ids).to.not.include(ids.older);
  });
});

describe('GET /api/articles/sync (page sizes)', () => {
  let h: Harness;
  let world: World;
  let ids: number[];

  before(async () => {
    h = await harness();
    world = await timedWorld(h);
    const now = nowDb();
    const rows = Array.from({ length: 130 }, (_, i) => ({
      company_id: world.otherClient.id, article_code: `BULK-${i}-${unique()}`, description: `Bulk ${i}`, um3pl: 'BUC',
      integer_only_um3pl_quantity: false, active: true, created_at: now, updated_at: now,
    }));
    await h.db.batchInsert('articles', rows, 50);
    ids = asc(await h.db('articles').where('company_id', world.otherClient.id).pluck('id'));
    expect(ids).to.have.length(131);
  });

  it('When per_page is not sent, Then pages hold 100 articles', async () => {
    const agent = world.as('otherClientAdmin');
    const first = await sync(agent, '');
    expect(first).to.deep.equal({ ids: ids.slice(0, 100), next: ids[99] });
    expect(await sync(agent, `cursor=${first.next}`)).to.deep.equal({ ids: ids.slice(100), next: null });
  });

  it('When per_page is 500, Then one page holds them all', async () => {
    expect(await sync(world.as('otherClientAdmin'), 'per_page=500')).to.deep.equal({ ids, next: null });
  });
});
