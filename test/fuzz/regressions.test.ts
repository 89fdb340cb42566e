/**
 * What the fuzzer (fuzz.test.ts) found, each as a plain test: huge numbers in bodies, paths and
 * queries that reached the database (500s, or a wrong page), bodies sent to operations that take
 * none (undocumented 400/413, or read and ignored), and GraphQL's own 400 for an unknown property.
 */
import { expect } from 'chai';
import { createToken, createWorld, unique, type World } from '../helpers/factories.js';
import { isolatedHarness } from '../helpers/harness.js';

describe('Fuzz findings', () => {
  let h: Awaited<ReturnType<typeof isolatedHarness>>;
  let world: World;

  before(async () => {
    // A database of its own: an article with id 2147483647 would make other suites' "a free id above the highest" overflow.
    h = await isolatedHarness();
    world = await createWorld(h.app, h.db);
  });

  after(async () => {
    await h?.close();
  });

  const article = (id: number | string) => `{"id":${id},"article_code":"${unique('FZ-ID-')}","description":"d","um3pl":"BUC"}`;

  describe('huge numbers', () => {
    // 2^63 - 1 and above: SQLite's "datatype mismatch"; above 2^32 - 1: MariaDB's INT UNSIGNED out of range; both a 500.
    for (const id of ['2147483648', '4294967296', '9223372036854775807', '9223372036854775808', '1e21']) {
      it(`When an article is created with the id ${id}, Then it answers 422 naming the id and stores nothing`, async () => {
        const res = await world.as('operator').post('/api/articles').set('Content-Type', 'application/json').send(article(id)).expect(422);
        expect(res.body.errors).to.deep.equal({ id: ['The id field must not be greater than 2147483647.'] });
        expect(await h.db('articles').where('id', '>', 2147483647).first()).to.equal(undefined);
      });
    }

    it('When an article is created with the id 2147483647, Then it is created with that id', async () => {
      const res = await world.as('operator').post('/api/articles').set('Content-Type', 'application/json').send(article(2147483647)).expect(201);
      expect(res.body.data.id).to.equal(2147483647);
    });

    // (page - 1) * per_page over 2^63: SQLite's "datatype mismatch" (500); over 1e21 knex wrote "offset 1" and answered a wrong page.
    for (const page of ['2147483648', '400000000000000000', '9223372036854775807', '1e21', '1e300']) {
      for (const path of ['/api/articles', '/api/stock', '/api/partners']) {
        it(`When ${path} is asked for page ${page}, Then it answers 422 naming page`, async () => {
          const res = await world.as('operator').get(`${path}?page=${page}&per_page=100`).expect(422);
          // A numeral with an exponent is no integer as sent, whatever it is worth (decimal digits only).
          const expected = page.includes('e') ? 'The page field must be an integer.' : 'The page field must not be greater than 2147483647.';
          expect(res.body.errors).to.deep.equal({ page: [expected] });
        });
      }
    }

    it('When a list is asked for the last page allowed, Then it answers an empty page', async () => {
      const res = await world.as('operator').get('/api/articles?page=2147483647&per_page=100').expect(200);
      expect(res.body.data).to.deep.equal([]);
    });

    // ajv coerces a numeral beyond a double to Infinity and passes it as an integer; MariaDB then fails on "Infinity" (500).
    for (const id of ['9'.repeat(400), '1e400']) {
      for (const path of ['/api/articles/', '/api/sales-orders/', '/api/webhooks/']) {
        it(`When GET ${path}{id} gets the id ${id.slice(0, 12)}…, Then it answers 422 naming the id`, async () => {
          const res = await world.as('admin').get(`${path}${id}`).expect(422);
          expect(res.body.errors).to.deep.equal({ id: ['The id field must be an integer.'] });
        });
      }
    }

    it('When the stock filter and the sync cursor get 1e400, Then each answers 422 naming its parameter', async () => {
      const stock = await world.as('operator').get('/api/stock?article_id=1e400').expect(422);
      expect(stock.body.errors).to.deep.equal({ article_id: ['The article_id field must be an integer.'] });
      const sync = await world.as('operator').get(`/api/articles/sync?cursor=${'9'.repeat(400)}`).expect(422);
      expect(sync.body.errors).to.deep.equal({ cursor: ['The cursor field must be an integer.'] });
    });

    it('When a body carries the numeral 1e400 for an id, Then it answers 422 naming the field', async () => {
      const body = `{"partner_id":1e400,"internal_code":"${unique('PO-')}","items":[{"article_id":${world.articles.client.id},"um3pl":"BUC","quantity_um3pl":1}]}`;
      const res = await world.as('operator').post('/api/purchase-orders').set('Content-Type', 'application/json').send(body).expect(422);
      expect(res.body.errors).to.have.property('partner_id');
    });
  });

  describe('bodies of operations that take none', () => {
    it('When a GET carries malformed JSON or an object, Then the body is not read and it answers 200', async () => {
      await world.as('operator').get('/api').set('Content-Type', 'application/json').send('{"a":').expect(200);
      await world.as('operator').get('/api/articles').set('Content-Type', 'application/json').send('{"page":"x"}').expect(200);
    });

    it('When the token revocation gets an unknown property, Then it answers 422 naming it and the token still works', async () => {
      const token = await createToken(h.db, world.users.operator.id);
      const res = await world.as('operator').post('/api/auth/revoke').set('Authorization', `Bearer ${token}`).send({ user_id: 1 }).expect(422);
      expect(res.body.errors).to.deep.equal({ user_id: ['The user_id field is not allowed.'] });
      await world.as('operator').get('/api/articles').set('Authorization', `Bearer ${token}`).expect(200);
    });

    it('When the token revocation gets malformed JSON, Then it answers the documented 400', async () => {
      const res = await world.as('operator').post('/api/auth/revoke').set('Content-Type', 'application/json').send('{"a":').expect(400);
      expect(res.body.message).to.equal('The request body is not valid JSON.');
    });

    it('When a ping gets a body over 1 MiB, Then it answers the documented 413', async () => {
      const big = `{"pad":"${'x'.repeat(1024 * 1024)}"}`;
      await world.as('admin').post('/api/webhooks/1/ping').set('Content-Type', 'application/json').send(big).expect(413);
    });

    it('When a ping gets an array or {}, Then the array is refused and {} passes', async () => {
      const refused = await world.as('admin').post('/api/webhooks/1/ping').send([1]).expect(422);
      expect(refused.body.errors).to.deep.equal({ body: ['This operation takes no request body.'] });
      await world.as('admin').post('/api/webhooks/999999/ping').send({}).expect(404);
    });
  });

  it('When a GraphQL request carries an unknown property, Then it answers 422 naming it (not GraphQL Yoga\'s 400)', async () => {
    const res = await world.as('operator').post('/graphql').send({ query: '{ __typename }', company_id: 1 }).expect(422);
    expect(res.body.errors[0].extensions.errors).to.deep.equal({ company_id: ['The company_id field is not allowed.'] });
  });
  // `make fuzz` (600 s): the contract check resolved `.` in the URL it was given and looked for
  // PUT /api/sales-orders/, though the server had answered PUT /api/sales-orders/{id} with id ".".
  for (const id of ['.', '..']) {
    it(`When PUT /api/sales-orders/${id} is sent, Then it is the {id} route and answers 422 naming the id (checked against the document as sent)`, async () => {
      const res = await world.as('operator').put(`/api/sales-orders/${id}`).send({}).expect(422);
      expect(Object.keys(res.body.errors)).to.include('id');
    });
  }
});
