import { expect } from 'chai';
import express from 'express';
import knex from 'knex';
import { pino, type Logger } from 'pino';
import request from 'supertest';
import { buildApp, harness, type Harness } from '../helpers/harness.js';
import { api, unchecked } from '../helpers/api.js';
import { closedPort } from '../helpers/net.js';
import { createWorld, type World } from '../helpers/factories.js';
import { createDb } from '../../src/platform/db/database.js';
import { errorHandler } from '../../src/platform/http/error-handler.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INVALID = 'The given data was invalid.';

/** A logger whose lines the test can read. */
function capturingLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const logger: Logger = pino({ level: 'info' }, { write: (line: string) => void out.push(line) });
  return { logger, lines: () => out.map((line) => JSON.parse(line) as Record<string, unknown>) };
}


describe('Request path', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  describe('X-Request-Id', () => {
    for (const id of ['abc-123.x:y_z', 'A'.repeat(128)]) {
      it(`When a safe id (${id.length} characters) is sent, Then it is echoed back`, async () => {
        const res = await api(h.app).get('/up').set('X-Request-Id', id).expect(200);
        expect(res.headers['x-request-id']).to.equal(id);
      });
    }

    for (const [what, id] of [
      ['has spaces and markup', 'a b<script>'],
      ['is longer than 128 characters', 'A'.repeat(129)],
      ['has a slash', '../etc/passwd'],
      ['is empty', ''],
    ] as const) {
      it(`When the id sent ${what}, Then it is replaced by a generated UUID`, async () => {
        const res = await api(h.app).get('/up').set('X-Request-Id', id).expect(200);
        expect(res.headers['x-request-id']).to.match(UUID);
      });
    }

    it('When no id is sent, Then each response carries a fresh UUID, errors included', async () => {
      const first = await api(h.app).get('/up').expect(200);
      const second = await api(h.app).get('/api/unknown').expect(404);
      expect(first.headers['x-request-id']).to.match(UUID);
      expect(second.headers['x-request-id']).to.match(UUID);
      expect(first.headers['x-request-id']).not.to.equal(second.headers['x-request-id']);
    });
  });

  describe('Routes and methods', () => {
    for (const path of ['/api/unknown', '/nope/here', '/']) {
      it(`When ${path} is requested, Then it answers a JSON 404 naming the route`, async () => {
        const res = await api(h.app).get(path).expect(404).expect('Content-Type', /^application\/json/);
        expect(res.body).to.deep.equal({ message: `The route GET ${path} could not be found.` });
      });
    }

    it('When the unknown path is very long, Then the message shows only its first 200 characters', async () => {
      const path = `/api/${'x'.repeat(300)}`;
      const res = await api(h.app).get(path).expect(404);
      expect(res.body).to.deep.equal({ message: `The route GET ${path.slice(0, 200)}… could not be found.` });
    });

    for (const path of ['/api/articles/by-code/Caf%E9', '/api/articles/by-code/50%']) {
      it(`When a path cannot be decoded (${path}), Then the 404 says it is not valid percent-encoding and how to encode`, async () => {
        const res = await api(h.app).patch(path).expect(404);
        expect(res.body).to.deep.equal({
          message: `The route PATCH ${path} could not be found: its path is not valid percent-encoding. Encode text as UTF-8 before percent-encoding it (é is %C3%A9, not %E9), and a % of the text as %25.`,
        });
      });
    }

    it('When a route is unknown and no token is sent, Then it is 404 (lookup runs before auth)', async () => {
      await api(h.app).post('/api/articles/nothing/here').expect(404);
    });

    for (const [method, path, allow] of [
      ['DELETE', '/api/companies', 'GET, HEAD, OPTIONS'],
      ['PUT', '/api/auth/token', 'POST, OPTIONS'],
      ['DELETE', '/api/articles/5', 'GET, PUT, HEAD, OPTIONS'],
    ]) {
      it(`When ${method} ${path} is called, Then it answers 405 with Allow: ${allow} (GET adds HEAD; OPTIONS is answered on every known path)`, async () => {
        const res = await api(h.app).request(method, path).expect(405);
        expect(res.headers.allow).to.equal(allow);
        expect(res.body).to.deep.equal({ message: `The ${method} method is not supported for ${path}. Supported methods: ${allow}.` });
      });
    }

    it('When OPTIONS is sent on a known path, Then it answers 204 with Allow and no body', async () => {
      // 204 to OPTIONS is not an operation of the document, so this response is outside it on purpose.
      const res = await unchecked(h.app).options('/api/articles').expect(204);
      expect(res.headers.allow).to.equal('GET, POST, HEAD, OPTIONS');
      expect(res.text).to.equal('');
    });

    it('When OPTIONS is sent on an unknown path, Then it answers 404', async () => {
      await api(h.app).options('/api/unknown').expect(404);
    });

    it('When HEAD is sent on a GET route, Then it answers like GET without a body', async () => {
      // The same Accept-Encoding on both: a GET's answer over 1 KiB is compressed when the client takes it.
      const get = await world.as('superAdmin').get('/api/companies').set('Accept-Encoding', 'gzip').expect(200);
      // unchecked: contract-check.ts validates HEAD's empty body against GET's schema, which no HEAD can pass.
      const head = await unchecked(h.app, { token: world.users.superAdmin.token }).head('/api/companies').set('Accept-Encoding', 'gzip').expect(200);
      expect(head.headers['content-encoding']).to.equal(get.headers['content-encoding']);
      expect(head.headers['content-type']).to.equal(get.headers['content-type']);
      expect(head.headers['content-length']).to.equal(get.headers['content-length']);
      expect(head.text ?? '').to.equal('');
    });

    it('When the path has a trailing slash, Then it answers the same data as without it', async () => {
      const as = world.as('superAdmin');
      const plain = await as.get('/api/companies').expect(200);
      const slashed = await as.get('/api/companies/').expect(200);
      expect(slashed.body.data).to.have.length.above(0);
      expect(slashed.body.data).to.deep.equal(plain.body.data);
      expect(slashed.body.meta.total).to.equal(plain.body.meta.total);
    });

    it('When the path has a trailing slash, Then links and meta.path still name the canonical path', async () => {
      const as = world.as('superAdmin');
      const plain = await as.get('/api/companies').expect(200);
      const slashed = await as.get('/api/companies/').expect(200);
      expect(slashed.body.meta.path).to.equal('http://api.test/api/companies');
      expect(slashed.body.links).to.deep.equal(plain.body.links);
    });
  });

  describe('Query and path parameters', () => {
    const cases: Array<[string, string, Record<string, string[]>]> = [
      ['an unknown query parameter', '/api/companies?colour=red', { colour: ['The colour field is not allowed.'] }],
      ['per_page=101', '/api/companies?per_page=101', { per_page: ['The per_page field must not be greater than 100.'] }],
      ['page=0', '/api/companies?page=0', { page: ['The page field must be at least 1.'] }],
      ['page=abc', '/api/companies?page=abc', { page: ['The page field must be an integer.'] }],
      ['a list in an integer filter (8,9)', '/api/stock?warehouse_id=8,9', { warehouse_id: ['The warehouse_id field must be an integer.'] }],
      ['an empty page=', '/api/companies?page=', { page: ['The page field must not be empty; leave it out instead.'] }],
      ['a non-integer path id', '/api/partners/abc', { id: ['The id field must be an integer.'] }],
      ['a path id of 0', '/api/partners/0', { id: ['The id field must be at least 1.'] }],
      // Decimal digits only: the validator's coercion read these as the number they loosely equal (another resource).
      ['a hexadecimal path id (0x10)', '/api/partners/0x10', { id: ['The id field must be an integer.'] }],
      ['a path id with an exponent (1e1)', '/api/partners/1e1', { id: ['The id field must be an integer.'] }],
      ['a path id with a sign (+1)', '/api/partners/+1', { id: ['The id field must be an integer.'] }],
      ['a path id with a space ( 1)', '/api/partners/%201', { id: ['The id field must be an integer.'] }],
      ['a binary page (0b1) beside a per_page over the limit', '/api/companies?page=0b1&per_page=101', { page: ['The page field must be an integer.'], per_page: ['The per_page field must not be greater than 100.'] }],
      ['a page with a decimal point (2.0)', '/api/companies?page=2.0', { page: ['The page field must be an integer.'] }],
      ['a hexadecimal value in an integer list (8,0x9)', '/api/stock?article_id=8,0x9', { article_id: ['The article_id field must be an integer.'] }],
    ];
    for (const [what, path, errors] of cases) {
      it(`When the request has ${what}, Then it answers 422 keyed by the parameter`, async () => {
        await world.as('superAdmin').get(path).expect(422, { message: INVALID, errors });
      });
    }

    it('When per_page=100, Then it is accepted', async () => {
      const res = await world.as('superAdmin').get('/api/companies?per_page=100').expect(200);
      expect(res.body.meta.per_page).to.equal(100);
    });
  });

  describe('Error precedence: 401 -> 400 -> 403 -> 422', () => {
    const badBody = { um3pl: 5, colour: 'red' };

    it('When no token is sent, Then it is 401 even without X-Company-Id and with a bad body', async () => {
      await api(h.app).post('/api/articles').send(badBody).expect(401, { message: 'Unauthenticated.' });
    });

    it('When no token is sent, Then a non-integer X-Company-Id is still 401', async () => {
      await api(h.app, { company: 'abc' }).post('/api/articles').send(badBody).expect(401, { message: 'Unauthenticated.' });
    });

    it('When a token but no X-Company-Id is sent, Then it is 400 even with a bad body', async () => {
      const res = await world.as('operator', null).post('/api/articles').send(badBody).expect(400);
      expect(res.body).to.deep.equal({ message: 'The X-Company-Id header is required.' });
    });

    it('When X-Company-Id is sent empty, Then it is as if it were not sent: 400 where it is required, the primary company where it is optional', async () => {
      for (const empty of ['', '   ']) {
        const res = await world.as('operator', null).post('/api/articles').set('X-Company-Id', empty).send(badBody).expect(400);
        expect(res.body).to.deep.equal({ message: 'The X-Company-Id header is required.' });
        const read = await world.as('operator', null).get('/api/companies').set('X-Company-Id', empty).expect(200);
        expect(read.body.data.map((c: { id: number }) => c.id)).to.deep.equal((await world.as('operator', null).get('/api/companies').expect(200)).body.data.map((c: { id: number }) => c.id));
      }
    });

    it('When a viewer sends X-Company-Id, Then it is 403 even with a bad body', async () => {
      const res = await world.as('viewer').post('/api/articles').send(badBody).expect(403);
      expect(res.body).to.deep.equal({ message: `This action needs the operator role; your role in company ${world.client.name} is viewer.` });
    });

    it('When an operator sends X-Company-Id and a bad body, Then it is 422 naming each field', async () => {
      const res = await world.as('operator').post('/api/articles').send(badBody).expect(422);
      expect(res.body).to.deep.equal({
        message: INVALID,
        errors: {
          article_code: ['The article_code field is required.'],
          description: ['The description field is required.'],
          um3pl: ['The um3pl field must be a string.'],
          colour: ['The colour field is not allowed.'],
        },
      });
    });

    it('When the body is valid, Then validation lets it through to the handler', async () => {
      const res = await world.as('operator').post('/api/articles').send({ article_code: 'A-1', description: 'An article', um3pl: 'BUC' }).expect(201);
      expect(res.body.data).to.include({ article_code: 'A-1', client_3pl_id: world.client.id });
    });

    for (const company of ['abc', '0', '99999999999']) {
      it(`When X-Company-Id is "${company}", Then it is 422 keyed X-Company-Id, listed with the body's and the query's problems`, async () => {
        const header = { 'X-Company-Id': ['The X-Company-Id header must be a positive integer of at most 2147483647.'] };
        const write = await world.as('operator', null).post('/api/articles').set('X-Company-Id', company).send(badBody).expect(422);
        expect(write.body).to.deep.equal({
          message: INVALID,
          errors: {
            ...header,
            article_code: ['The article_code field is required.'],
            description: ['The description field is required.'],
            um3pl: ['The um3pl field must be a string.'],
            colour: ['The colour field is not allowed.'],
          },
        });
        await world.as('operator', null).get('/api/companies').set('X-Company-Id', company).expect(422, { message: INVALID, errors: header });
        const read = await world.as('operator', null).get('/api/articles?per_page=0').set('X-Company-Id', company).expect(422);
        expect(read.body.errors).to.deep.equal({ ...header, per_page: ['The per_page field must be at least 1.'] });
      });
    }
  });

  describe('Error bodies', () => {
    function throwingApp(error: unknown, logger: Logger = pino({ level: 'silent' })): express.Express {
      const app = express();
      app.use((req, _res, next) => {
        req.requestId = 'req-under-test';
        next();
      });
      app.use(() => {
        throw error;
      });
      app.use(errorHandler(logger));
      return app;
    }

    it('When a handler throws an unexpected error, Then the body is exactly {"message":"Server Error."}', async () => {
      const error = new Error('SELECT secret FROM /etc/passwd at /work/main/src/x.ts');
      const res = await request(throwingApp(error)).get('/x').expect(500).expect('Content-Type', /^application\/json/);
      expect(res.text).to.equal('{"message":"Server Error."}');
    });

    it('When an unexpected error is answered, Then its detail goes to the log with the request id', async () => {
      const { logger, lines } = capturingLogger();
      await request(throwingApp(new Error('SELECT secret FROM t'), logger)).get('/x').expect(500);
      const line = lines().find((l) => l.msg === 'request failed');
      expect(line).to.include({ level: 50, requestId: 'req-under-test' });
      expect((line!.err as { message: string }).message).to.equal('SELECT secret FROM t');
    });

    it('When a knex connection error is thrown, Then it answers 503 with Retry-After', async () => {
      const error = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:3306'), { code: 'ECONNREFUSED' });
      const res = await request(throwingApp(error)).get('/x').expect(503);
      expect(res.headers['retry-after']).to.equal('5');
      expect(res.body).to.deep.equal({ message: 'The service is temporarily unavailable. Try again shortly.' });
    });

    it('When a transaction is still a deadlock victim after its retries, Then it answers 503 with Retry-After: 1 saying nothing was changed', async () => {
      const error = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
      const res = await request(throwingApp(error)).get('/x').expect(503);
      expect(res.headers['retry-after']).to.equal('1');
      expect(res.body).to.deep.equal({ message: 'Too many concurrent changes to the same records; nothing was changed. Try again shortly.' });
    });

    it('When the database is unreachable, Then the real app answers 503 with Retry-After and no detail', async () => {
      const db = knex({
        client: 'mysql2',
        connection: { host: '127.0.0.1', port: await closedPort(), user: 'x', database: 'x', connectTimeout: 2000 },
        pool: { min: 0, max: 1 },
        log: { warn() {}, error() {}, debug() {}, deprecate() {} },
      });
      try {
        const app = (await buildApp({ deps: { db } })).app;
        // 503 on a data route is not in the document: outside it on purpose.
        const res = await unchecked(app, { token: world.users.operator.token }).get('/api/companies').expect(503);
        expect(res.headers['retry-after']).to.equal('5');
        expect(res.text).to.equal('{"message":"The service is temporarily unavailable. Try again shortly."}');
      } finally {
        await db.destroy();
      }
    });

    it('When a query fails unexpectedly in the real app, Then it answers 500 {"message":"Server Error."} and logs it', async () => {
      // Not migrated: every query fails with "no such table" (a destroyed pool would be a 503).
      const db = createDb('sqlite::memory:');
      const { logger, lines } = capturingLogger();
      const app = (await buildApp({ deps: { db, logger } })).app;
      const res = await unchecked(app, { token: world.users.operator.token })
        .get('/api/companies')
        .set('X-Request-Id', 'outage-500')
        .expect(500);
      await db.destroy();
      expect(res.text).to.equal('{"message":"Server Error."}');
      expect(lines().some((l) => l.msg === 'request failed' && l.requestId === 'outage-500')).to.equal(true);
    });
  });

  describe('Response headers', () => {
    it('When any response is sent, Then it has no X-Powered-By', async () => {
      const ok = await api(h.app).get('/up').expect(200);
      const missing = await api(h.app).get('/api/unknown').expect(404);
      const malformed = await api(h.app).post('/api/auth/token').set('Content-Type', 'application/json').send('{').expect(400);
      for (const res of [ok, missing, malformed]) expect(res.headers).not.to.have.property('x-powered-by');
    });
  });
});
