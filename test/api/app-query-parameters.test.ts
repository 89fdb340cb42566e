/**
 * What the request path makes of query and path parameters as sent by hand: a one-value parameter
 * sent twice, integers in forms other than decimal digits, times and dates in the wrong shape. Each
 * is a 422 on the parameter saying what to send instead.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';

const INVALID = 'The given data was invalid.';

describe('Request path: query and path parameters', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const refused = async (path: string, errors: Record<string, string[]>): Promise<void> => {
    await world.as('operator').get(path).expect(422, { message: INVALID, errors });
  };

  describe('A one-value parameter sent more than once', () => {
    const T = '2026-01-01T00:00:00Z';
    for (const [name, path, times] of [
      ['page', '/api/companies?page=1&page=2', 2],
      ['updated_since', `/api/articles/sync?updated_since=${T}&updated_since=2026-01-02T00:00:00Z`, 2],
      ['at', `/api/stock/as-of?at=${T}&at=${T}&at=${T}`, 3],
      ['expires_before', '/api/stock?expires_before=2027-01-01&expires_before=2027-02-01', 2],
      ['search', '/api/articles?search=a&search=b', 2],
    ] as const) {
      it(`When ${name} is sent ${times} times, Then it is a 422 on ${name} saying to send it once`, async () => {
        await refused(path, { [name]: [`The ${name} field must be sent once; it was sent ${times} times.`] });
      });
    }

    it('When a repeated parameter also has a bad value, Then it is named once, as repeated, beside the other problems', async () => {
      await refused('/api/companies?page=1&page=0x2&per_page=101', {
        page: ['The page field must be sent once; it was sent 2 times.'],
        per_page: ['The per_page field must not be greater than 100.'],
      });
    });

    it('When a list parameter is repeated or comma-separated, Then it is still read as a list', async () => {
      await world.as('operator').get('/api/stock?article_id=1&article_id=2').expect(200);
      await world.as('operator').get('/api/stock?article_id=1,2&article_code=A&article_code=B').expect(200);
      // Every value is read: 101 ids repeated go over the list's 100 as a comma list of 101 does.
      const ids = Array.from({ length: 101 }, (_, i) => i + 1);
      const over = await world.as('operator').get(`/api/stock?${ids.map((id) => `article_id=${id}`).join('&')}`).expect(422);
      const comma = await world.as('operator').get(`/api/stock?article_id=${ids.join(',')}`).expect(422);
      expect(over.body).to.deep.equal(comma.body);
      expect(Object.keys(over.body.errors)).to.deep.equal(['article_id']);
    });
  });

  describe('Every problem of the query in one 422', () => {
    // An unknown or empty parameter used to stop the validator before it read the others.
    const keysOf = async (path: string): Promise<string[]> => {
      const res = await world.as('operator').get(path).expect(422);
      expect(res.body.message).to.equal(INVALID);
      return Object.keys(res.body.errors).sort();
    };

    it('When an unknown parameter comes with bad values of known ones, Then the 422 names the unknown one and each bad value', async () => {
      const res = await world.as('operator').get('/api/sales-orders?foo=bar&status=x&page=0&updated_since=yesterday').expect(422);
      expect(res.body.errors).to.include.keys('foo', 'status', 'page', 'updated_since');
      expect(res.body.errors.foo).to.deep.equal(['The foo field is not allowed.']);
      expect(res.body.errors.page).to.deep.equal(['The page field must be at least 1.']);
      expect(res.body.errors.updated_since).to.deep.equal(['The updated_since field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.']);
      expect(res.body.errors.status[0]).to.match(/^The status field must be one of: new, /);
      expect(await keysOf('/api/sales-orders?foo=bar&per_page=0')).to.deep.equal(['foo', 'per_page']);
    });

    it('When empty parameters come with bad values of others, Then the 422 names each empty one (leave it out) and each bad value', async () => {
      await refused('/api/sales-orders?status=&page=0', {
        status: ['The status field must not be empty; leave it out instead.'],
        page: ['The page field must be at least 1.'],
      });
      const res = await world.as('operator').get('/api/events?after=&types=x&per_page=0').expect(422);
      expect(Object.keys(res.body.errors).sort()).to.deep.equal(['after', 'per_page', 'types']);
      expect(res.body.errors.after).to.deep.equal(['The after field must not be empty; leave it out instead.']);
      expect(res.body.errors.per_page).to.deep.equal(['The per_page field must be at least 1.']);
    });

    it('When a parameter is written with brackets (status[]=new, per_page[0]=5, as PHP and qs write arrays), Then one message says to send it without them, not three', async () => {
      await refused('/api/sales-orders?status[]=new&per_page[0]=5&page=0', {
        'status[]': ['The status[] field is not allowed: send status without brackets (status=…).'],
        'per_page[0]': ['The per_page[0] field is not allowed: send per_page without brackets (per_page=…).'],
        page: ['The page field must be at least 1.'],
      });
      // Sent without brackets too, the parameter keeps its own problems.
      const both = await world.as('operator').get('/api/sales-orders?status[]=new&status=x').expect(422);
      expect(Object.keys(both.body.errors).sort()).to.deep.equal(['status', 'status[]']);
    });

    it('When several parameters are unknown or empty, Then each is named once, in one 422', async () => {
      await refused('/api/companies?colour=red&size=&page=&per_page=101', {
        colour: ['The colour field is not allowed.'],
        size: ['The size field is not allowed.'],
        page: ['The page field must not be empty; leave it out instead.'],
        per_page: ['The per_page field must not be greater than 100.'],
      });
    });

    it('When a value holds reserved characters it cannot hold (a list in an integer, a time in a date, * in a list of choices), Then the 422 still names every other problem', async () => {
      await refused('/api/stock?expires_before=2027-01-01T00:00:00Z&warehouse_id=8,9&page=0&foo=1', {
        expires_before: ['The expires_before field must be a date (YYYY-MM-DD) that exists, such as 2027-03-31.'],
        warehouse_id: ['The warehouse_id field must be an integer.'],
        page: ['The page field must be at least 1.'],
        foo: ['The foo field is not allowed.'],
      });
      const res = await world.as('operator').get('/api/events?types=stock.changed,*&per_page=0').expect(422);
      expect(Object.keys(res.body.errors).sort()).to.deep.equal(['per_page', 'types']);
    });

    it('When a read that takes no parameter at all gets a query (a cache-busting ?v=2, an empty x=), Then it still answers', async () => {
      await world.as('operator').get('/api?v=2&x=').expect(200);
      await world.as('operator').get('/openapi.json?v=2&x=').expect(200);
    });

    it('When an operation takes no query parameters (a path and a header only), Then any sent is named as not allowed', async () => {
      await refused(`/api/articles/${world.articles.client.id}?a=1&b=`, {
        a: ['The a field is not allowed.'],
        b: ['The b field is not allowed.'],
      });
    });
  });

  describe('Integers: decimal digits, leading zeros allowed, nothing else', () => {
    for (const [what, path, name] of [
      ['a per_page of a space', '/api/companies?per_page=%20', 'per_page'],
      ['a per_page of a tab and spaces', '/api/companies?per_page=%09%20%20', 'per_page'],
      ['a path id of a space', '/api/articles/%20', 'id'],
      ['a per_page of letters', '/api/companies?per_page=abc', 'per_page'],
    ] as const) {
      it(`When the request has ${what}, Then it is a 422 saying it must be an integer (not read as 0, "at least 1")`, async () => {
        await refused(path, { [name]: [`The ${name} field must be an integer.`] });
      });
    }

    it('When a query integer, a path id and X-Company-Id have leading zeros, Then each is read as its digits say', async () => {
      const list = await world.as('operator').get('/api/companies?per_page=05').expect(200);
      expect(list.body.meta.per_page).to.equal(5);
      const article = await world.as('operator').get(`/api/articles/00${world.articles.client.id}`).expect(200);
      expect(article.body.data.id).to.equal(world.articles.client.id);
      const read = await world.as('operator', null).get(`/api/articles/${world.articles.client.id}`).set('X-Company-Id', `0${world.client.id}`).expect(200);
      expect(read.body.data.client_3pl_id).to.equal(world.client.id);
      const created = await world.as('operator', null).post('/api/articles').set('X-Company-Id', `000${world.client.id}`)
        .send({ article_code: `LZ-${world.client.id}`, description: 'Padded company', um3pl: 'BUC' }).expect(201);
      expect(created.body.data.client_3pl_id).to.equal(world.client.id);
    });

    it('When X-Company-Id is sent twice, Then the 422 on the header says so', async () => {
      const id = String(world.client.id);
      const errors = { 'X-Company-Id': [`The X-Company-Id header was sent more than once (${id}, ${id}): send it once, with one company id.`] };
      await world.as('operator', null).get('/api/companies').set('X-Company-Id', [id, id] as unknown as string).expect(422, { message: INVALID, errors });
    });

    for (const company of ['0', '00', '+2', '2.0', '0x2', '1,5', '2, x']) {
      it(`When X-Company-Id is "${company}", Then it is still a 422 on the header`, async () => {
        const errors = { 'X-Company-Id': ['The X-Company-Id header must be a positive integer of at most 2147483647.'] };
        await world.as('operator', null).get('/api/companies').set('X-Company-Id', company).expect(422, { message: INVALID, errors });
      });
    }
  });

  describe('Times without a UTC offset', () => {
    const expected = (name: string) => [`The ${name} field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.`];
    for (const [name, path] of [
      ['updated_since', '/api/articles/sync?updated_since=2026-01-01T00:00:00'],
      ['updated_since', '/api/sales-orders?updated_since=2026-01-01T00:00:00.5'],
      ['at', '/api/stock/as-of?at=2026-01-01T00:00:00'],
      ['since', '/api/stock/movements?since=2026-01-01T00:00:00'],
      ['until', '/api/stock/movements?until=2026-01-01T00:00:00'],
    ] as const) {
      it(`When ${name} is a local time (${path.split('=')[1]}), Then the 422 says it needs a UTC offset or Z`, async () => {
        await refused(path, { [name]: expected(name) });
      });
    }

    it('When a shipment\'s shipped_at is a local time, Then the 422 on shipped_at says it needs a UTC offset or Z', async () => {
      const res = await world.as('operator').post('/api/sales-orders/999999/shipments').send({ carrier: 'DHL', shipped_at: '2026-11-21T10:00:00' }).expect(422);
      expect(res.body.errors.shipped_at).to.deep.equal(expected('shipped_at'));
    });
  });

  describe('A date where a date-time was sent (reserved characters in a value that cannot hold them)', () => {
    const expected = { expires_before: ['The expires_before field must be a date (YYYY-MM-DD) that exists, such as 2027-03-31.'] };
    for (const path of ['/api/stock?expires_before=2027-01-01T00:00:00Z', '/api/stock/as-of?at=2026-11-21T10:00:00Z&expires_before=2027-01-01T00:00:00Z']) {
      it(`When ${path.split('?')[0]} gets expires_before=2027-01-01T00:00:00Z unencoded, Then the 422 says it must be a date, as it does encoded`, async () => {
        await refused(path, expected);
        await refused(path.replace('expires_before=2027-01-01T00:00:00Z', 'expires_before=2027-01-01T00%3A00%3A00Z'), expected);
      });
    }
  });
  describe('Percent-encoded bytes that are not UTF-8', () => {
    const NOT_UTF8 = 'must be UTF-8 text, percent-encoded: its bytes are not UTF-8 (é is %C3%A9, not %E9 as in Latin-1)';

    it('When search and lot are Latin-1 (Caf%E9, L%E9), Then the 422 names each with the other problems, instead of running for U+FFFD', async () => {
      await refused('/api/articles?search=Caf%E9&page=0', { search: [`The search field ${NOT_UTF8}.`], page: ['The page field must be at least 1.'] });
      await refused('/api/stock?lot=L%E9', { lot: [`The lot field ${NOT_UTF8}.`] });
      await refused('/api/articles?search=%C3', { search: [`The search field ${NOT_UTF8}.`] });
    });

    it('When the same text is UTF-8, a literal %, or U+FFFD itself percent-encoded, Then it is read as sent', async () => {
      for (const search of ['Caf%C3%A9', '50%', '%EF%BF%BD', 'a+b%2B%F0%9F%98%80']) await world.as('operator').get(`/api/articles?search=${search}`).expect(200);
    });
  });
});
