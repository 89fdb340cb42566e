/**
 * GraphQL `stock`, `stock_as_of` and `stock_movements` take the filters of GET /api/stock, GET
 * /api/stock/as-of and GET /api/stock/movements (stock type, lot, expiry, article code,
 * updated_since; at; cause, since, until) and answer the rows REST answers for them; a filter that breaks REST's rules is
 * BAD_USER_INPUT on its argument, as REST answers 422 on its parameter.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { freshArticle } from '../fixtures/articles.js';
import { adjust, deltaLine } from '../fixtures/stock-adjustments.js';
import { transfer, transferLine } from '../fixtures/stock-transfers.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';

type Row = { id: number };

describe('POST /graphql: the filters of stock, stock_as_of and stock_movements', () => {
  let h: Harness;
  let world: World;

  /** A millisecond after `time`. */
  const after = (time: string): string => new Date(Date.parse(time) + 1).toISOString();
  const ids = (rows: Row[]): number[] => rows.map((r) => r.id);
  const rest = async (path: string): Promise<number[]> => ids((await world.as('viewer').get(path).expect(200)).body.data as Row[]);
  const graphql = async (field: 'stock' | 'stock_movements', args: string): Promise<number[]> => {
    const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field}(${args}, limit: 200) { id } }` }).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return ids(res.body.data[field] as Row[]);
  };

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When stock is filtered by lot, expiry, stock type, article code or updated_since, Then it answers the rows GET /api/stock answers for the same filters', async () => {
    const tracked = await trackedArticle(world);
    const [early, late] = [unique('L-'), unique('L-')];
    await receiveLots(world, tracked, [{ quantity: 4, lot: early, expiry_date: dayFromToday(20) }, { quantity: 6, lot: late, expiry_date: dayFromToday(40) }]);
    const plain = await freshArticle(world);
    const [w1] = world.warehouses as [number, number];
    await adjust(world, [deltaLine(plain, 5)]);
    await transfer(world, [transferLine(plain, 2, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]);
    const defect = await rest(`/api/stock?article_id=${plain.id}&stock_type=STOC_DEFECT`);
    expect(defect).to.have.length(1);
    const times = ((await world.as('viewer').get(`/api/stock?article_id=${plain.id}`).expect(200)).body.data as Array<{ updated_at: string }>).map((r) => r.updated_at);
    const [oldest, newest] = [times.sort()[0]!, times[times.length - 1]!];

    const cases: Array<[string, string, number]> = [
      [`article_id: ${tracked.id}, lot: "${early}"`, `article_id=${tracked.id}&lot=${early}`, 1],
      [`article_id: ${tracked.id}, expires_before: "${dayFromToday(30)}"`, `article_id=${tracked.id}&expires_before=${dayFromToday(30)}`, 1],
      [`article_id: ${tracked.id}, expires_before: "${dayFromToday(41)}"`, `article_id=${tracked.id}&expires_before=${dayFromToday(41)}`, 2],
      [`article_code: "${plain.code}", stock_type: STOC_DEFECT`, `article_code=${plain.code}&stock_type=STOC_DEFECT`, 1],
      [`article_code: "${plain.code}"`, `article_code=${plain.code}`, 2],
      [`article_id: ${plain.id}, updated_since: "${oldest}"`, `article_id=${plain.id}&updated_since=${oldest}`, 2],
      [`article_id: ${plain.id}, updated_since: "${after(newest)}"`, `article_id=${plain.id}&updated_since=${after(newest)}`, 0],
      [`article_id: ${plain.id}, stock_type: STOC_QUARANTINE`, `article_id=${plain.id}&stock_type=STOC_QUARANTINE`, 0],
    ];
    for (const [args, query, count] of cases) {
      const expected = await rest(`/api/stock?${query}`);
      expect(expected, query).to.have.length(count);
      expect(await graphql('stock', args), args).to.deep.equal(expected);
    }
  });

  it('When stock_movements is filtered by cause, stock type, lot, since or until, Then it answers the rows GET /api/stock/movements answers for the same filters', async () => {
    const tracked = await trackedArticle(world);
    const lot = unique('L-');
    await receiveLots(world, tracked, [{ quantity: 4, lot, expiry_date: dayFromToday(20) }, { quantity: 3, lot: unique('L-'), expiry_date: dayFromToday(30) }]);
    const plain = await freshArticle(world);
    const [w1] = world.warehouses as [number, number];
    await adjust(world, [deltaLine(plain, 5)]);
    await transfer(world, [transferLine(plain, 2, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]);
    const moves = (await world.as('viewer').get(`/api/stock/movements?article_id=${plain.id}`).expect(200)).body.data as Array<{ id: number; created_at: string }>;
    expect(moves).to.have.length(3);
    const [first, , last] = moves as [{ created_at: string }, unknown, { created_at: string }];

    const cases: Array<[string, string, number]> = [
      [`article_id: ${plain.id}, cause: transfer`, `article_id=${plain.id}&cause=transfer`, 2],
      [`article_id: ${plain.id}, cause: adjustment`, `article_id=${plain.id}&cause=adjustment`, 1],
      [`article_id: ${plain.id}, stock_type: STOC_DEFECT`, `article_id=${plain.id}&stock_type=STOC_DEFECT`, 1],
      [`article_id: ${tracked.id}, lot: "${lot}"`, `article_id=${tracked.id}&lot=${lot}`, 1],
      [`article_id: ${plain.id}, since: "${last.created_at}"`, `article_id=${plain.id}&since=${last.created_at}`, 2],
      [`article_id: ${plain.id}, until: "${first.created_at}"`, `article_id=${plain.id}&until=${first.created_at}`, 1],
    ];
    for (const [args, query, count] of cases) {
      const expected = await rest(`/api/stock/movements?${query}`);
      expect(expected, query).to.have.length(count);
      expect(await graphql('stock_movements', args), args).to.deep.equal(expected);
    }
  });

  it('When stock_as_of is asked for an instant, with filters, Then it answers the rows GET /api/stock/as-of answers (with the stock row id), and pages by after', async () => {
    const tracked = await trackedArticle(world);
    const [early, late] = [unique('L-'), unique('L-')];
    await receiveLots(world, tracked, [{ quantity: 4, lot: early, expiry_date: dayFromToday(20) }, { quantity: 6, lot: late, expiry_date: dayFromToday(40) }]);
    const plain = await freshArticle(world);
    const [w1] = world.warehouses as [number, number];
    await adjust(world, [deltaLine(plain, 5)]);
    const between = (await world.as('viewer').get(`/api/stock/movements?article_id=${plain.id}`).expect(200)).body.data[0].created_at as string;
    await transfer(world, [transferLine(plain, 2, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]);
    const now = new Date(Date.now() + 60_000).toISOString();
    type AsOfRow = { id: number; quantity: number } & Record<string, unknown>;
    const asOf = async (args: string): Promise<AsOfRow[]> => {
      const fields = 'id client_3pl_id warehouse_id article_id article_code stock_type lot expiry_date quantity';
      const res = await world.as('viewer').post('/graphql').send({ query: `{ stock_as_of(${args}) { ${fields} } }` }).expect(200);
      expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
      return res.body.data.stock_as_of as AsOfRow[];
    };
    const restAsOf = async (query: string): Promise<unknown[]> => (await world.as('viewer').get(`/api/stock/as-of?per_page=200&${query}`).expect(200)).body.data as unknown[];

    const cases: Array<[string, string, number[]]> = [
      [`at: "${now}", article_id: ${plain.id}`, `at=${now}&article_id=${plain.id}`, [3, 2]],
      [`at: "${between}", article_id: ${plain.id}`, `at=${between}&article_id=${plain.id}`, [5, 0]],
      [`at: "${now}", article_code: "${plain.code}", stock_type: STOC_DEFECT`, `at=${now}&article_code=${plain.code}&stock_type=STOC_DEFECT`, [2]],
      [`at: "${now}", article_id: ${tracked.id}, lot: "${late}"`, `at=${now}&article_id=${tracked.id}&lot=${late}`, [6]],
      [`at: "${now}", article_id: ${tracked.id}, expires_before: "${dayFromToday(30)}"`, `at=${now}&article_id=${tracked.id}&expires_before=${dayFromToday(30)}`, [4]],
    ];
    for (const [args, query, quantities] of cases) {
      const rows = await asOf(`${args}, limit: 200`);
      expect(rows.map((r) => r.quantity), args).to.deep.equal(quantities);
      expect(rows.map(({ id: _id, ...row }) => row), args).to.deep.equal(await restAsOf(query));
    }
    const all = await asOf(`at: "${now}", article_id: ${plain.id}`);
    const [first] = await asOf(`at: "${now}", article_id: ${plain.id}, limit: 1`);
    const rest = await asOf(`at: "${now}", article_id: ${plain.id}, after: ${first!.id}`);
    expect([first, ...rest]).to.deep.equal(all);
    const stockIds = ids((await world.as('viewer').post('/graphql').send({ query: `{ stock(article_id: ${plain.id}) { id } }` }).expect(200)).body.data.stock as Row[]);
    expect(all.map((r) => r.id)).to.deep.equal(stockIds);
  });

  it('When a filter breaks the rules REST has for it, Then the field fails with BAD_USER_INPUT on the argument; an unknown cause or stock type is a validation error', async () => {
    const cases: Array<[string, string, string]> = [
      ['stock(expires_before: "2027-02-31")', 'expires_before', 'The expires_before argument must be a date that exists, as YYYY-MM-DD (2027-01-31).'],
      ['stock(expires_before: "31.01.2027")', 'expires_before', 'The expires_before argument must be a date that exists, as YYYY-MM-DD (2027-01-31).'],
      ['stock(lot: "")', 'lot', 'The lot argument must not be empty; leave it out instead.'],
      [`stock(lot: "${'L'.repeat(65)}")`, 'lot', 'The lot argument must not be longer than 64 characters.'],
      [`stock(article_code: "${'C'.repeat(65)}")`, 'article_code', 'The article_code argument must not be longer than 64 characters.'],
      ['stock(updated_since: "yesterday")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      [`stock_movements(lot: "${'L'.repeat(65)}")`, 'lot', 'The lot argument must not be longer than 64 characters.'],
      ['stock_movements(since: "9999-12-31T23:30:00-01:00")', 'since', 'The since argument must be a time of the years 0000 to 9999 in UTC.'],
      ['stock_movements(since: "2026-11-21T10:00:00")', 'since', 'The since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock_movements(until: "tomorrow")', 'until', 'The until argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock_as_of(at: "end of October")', 'at', 'The at argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock_as_of(at: "2026-11-28T06:01:60Z")', 'at', 'The at argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock(updated_since: " 2026-11-21T10:00:00Z")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock(updated_since: "2026-11-21T10:00:00Z\\n")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock_as_of(at: "2026-10-31T23:59:59Z", lot: "")', 'lot', 'The lot argument must not be empty; leave it out instead.'],
      ['stock_as_of(at: "2026-10-31T23:59:59Z", expires_before: "2027-02-31")', 'expires_before', 'The expires_before argument must be a date that exists, as YYYY-MM-DD (2027-01-31).'],
    ];
    for (const [field, argument, message] of cases) {
      const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field} { id } }` }).expect(200);
      expect(res.body.errors?.[0]?.extensions, field).to.deep.include({ code: 'BAD_USER_INPUT', errors: { [argument]: [message] } });
    }
    const arrayAt = await world.as('viewer').post('/graphql').send({ query: 'query($at: DateTime!) { stock_as_of(at: $at) { id } }', variables: { at: ['2026-11-28T06:01:19Z'] } }).expect(200);
    expect(arrayAt.body.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    expect(arrayAt.body.data).to.equal(undefined);
    for (const field of ['stock_movements(cause: theft)', 'stock(stock_type: STOC_LOST)']) {
      const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field} { id } }` }).expect(200);
      expect(res.body.errors?.[0]?.extensions?.code, field).to.equal('GRAPHQL_VALIDATION_FAILED');
    }
  });
});
