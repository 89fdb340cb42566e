import { expect } from 'chai';
import { randomBytes, randomInt } from 'node:crypto';
import { pino } from 'pino';
import type { Response } from 'supertest';
import type { AppDeps } from '../../src/platform/app-deps.js';
import { buildApp, ETSM_TEST_TOKEN, MDM_TEST_TOKEN, testConfig, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { closedPort, redisAnswers, until } from '../helpers/net.js';
import { createUser, createWorld, TEST_PASSWORD } from '../helpers/factories.js';
import { testEnv } from '../helpers/test-env.js';
import { connectRedis, type RedisConnection } from '../../src/platform/redis.js';

const LIMITS = { RATE_LIMIT_AUTH_PER_MINUTE: '3', RATE_LIMIT_DATA_PER_MINUTE: '5' };
const silent = pino({ level: 'silent' });

function limitedApp(deps: Partial<AppDeps> = {}, overrides: Record<string, string> = {}): Promise<Harness> {
  return buildApp({ config: testConfig({ ...LIMITS, ...overrides }), deps });
}

/** The draft-6 RateLimit-* headers of a limited response; answers RateLimit-Remaining. */
function limitHeaders(res: Response, limit: number): number {
  expect(res.headers['ratelimit-policy'], 'RateLimit-Policy').to.equal(`${limit};w=60`);
  expect(res.headers['ratelimit-limit'], 'RateLimit-Limit').to.equal(String(limit));
  expect(res.headers['ratelimit-remaining'], 'RateLimit-Remaining').to.match(/^\d+$/);
  expect(res.headers['ratelimit-reset'], 'RateLimit-Reset').to.match(/^\d+$/);
  expect(Number(res.headers['ratelimit-reset'])).to.be.within(1, 60);
  return Number(res.headers['ratelimit-remaining']);
}

/** A 429 as the contract has it: Retry-After in whole seconds, the same number in the message. */
function tooMany(res: Response, limit: number): void {
  expect(res.status).to.equal(429);
  const retry = res.headers['retry-after'];
  expect(retry, 'Retry-After').to.match(/^[1-9]\d*$/);
  expect(Number(retry)).to.be.at.most(60);
  const seconds = /^Too many requests\. Try again in (\d+) seconds\.$/.exec(res.body.message)?.[1];
  expect(res.body, 'body').to.have.all.keys('message');
  expect(Number(seconds), res.body.message).to.be.within(Number(retry) - 1, Number(retry));
  expect(limitHeaders(res, limit)).to.equal(0);
}

const login = (h: Harness, email: string, password = 'wrong-password') => api(h.app).post('/api/auth/token').send({ email, password });

describe('Rate limit of POST /api/auth/token (x-rate-limit auth)', () => {
  let h: Harness;

  before(async () => {
    h = await limitedApp();
  });

  it('When the limits first count logins, data requests and refused tokens, Then nothing is logged at warn or above (express-rate-limit\'s checks of its options find nothing)', async () => {
    const lines: Array<{ level: number; msg?: string; err?: { code?: string } }> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const h = await limitedApp({ logger });
    const world = await createWorld(h.app, h.db);
    await api(h.app).post('/api/auth/token').send({ email: world.users.operator.email, password: TEST_PASSWORD }).expect(200);
    await world.as('operator').get('/api/articles').expect(200);
    await api(h.app, { token: 'not-a-token' }).get('/api/articles').expect(401);
    expect(lines.map((l) => `${l.level} ${l.err?.code ?? ''} ${l.msg ?? ''}`)).to.deep.equal([]);
  });

  it('When one email is tried 4 times from one address, Then the 4th answers 429 with Retry-After, even with the right password', async () => {
    const user = await createUser(h.db);
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push(limitHeaders(await login(h, user.email).expect(422), 3));
    expect(remaining).to.deep.equal([2, 1, 0]);
    tooMany(await login(h, user.email, TEST_PASSWORD), 3);
  });

  it('When one email is exhausted, Then another email from the same address still logs in', async () => {
    const [user, other] = [await createUser(h.db), await createUser(h.db)];
    for (let i = 0; i < 4; i++) await login(h, user.email);
    tooMany(await login(h, user.email), 3);
    const res = await login(h, other.email, TEST_PASSWORD).expect(200);
    expect(limitHeaders(res, 3)).to.equal(2);
    expect(res.body.user.email).to.equal(other.email);
  });

  it('When the email differs only in case, Then the attempts count against the same email', async () => {
    const user = await createUser(h.db);
    for (const email of [user.email, user.email.toUpperCase(), user.email.replace(/^u/, 'U')]) await login(h, email).expect(422);
    tooMany(await login(h, user.email.toUpperCase(), TEST_PASSWORD), 3);
  });

  it('When the same email comes from another client address (behind a trusted proxy), Then it is counted apart', async () => {
    const proxied = await limitedApp({}, { TRUST_PROXY: 'true' });
    const user = await createUser(proxied.db);
    const from = (address: string, password?: string) => login(proxied, user.email, password).set('X-Forwarded-For', address);
    for (let i = 0; i < 3; i++) await from('203.0.113.7').expect(422);
    tooMany(await from('203.0.113.7'), 3);
    expect(limitHeaders(await from('198.51.100.9', TEST_PASSWORD).expect(200), 3)).to.equal(2);
  });

  it('When logins come over IPv6 (behind a trusted proxy), Then one /56 counts as one client, an IPv4-mapped address as its IPv4 address, and another /56 apart', async () => {
    const proxied = await limitedApp({}, { TRUST_PROXY: 'true' });
    const user = await createUser(proxied.db);
    const from = (address: string, password?: string) => login(proxied, user.email, password).set('X-Forwarded-For', address);
    for (const address of ['2001:db8:0:1::7', '2001:db8:0:2::9', '2001:db8:0:3::1']) await from(address).expect(422);
    tooMany(await from('2001:db8:0:4::2'), 3);
    for (let i = 0; i < 3; i++) await from('::ffff:198.51.100.20').expect(422);
    tooMany(await from('198.51.100.20'), 3);
    expect(limitHeaders(await from('2001:db8:0:100::1', TEST_PASSWORD).expect(200), 3)).to.equal(2);
  });

  it('When the login succeeds or fails validation, Then the response still carries the RateLimit headers', async () => {
    const user = await createUser(h.db);
    expect(limitHeaders(await login(h, user.email, TEST_PASSWORD).expect(200), 3)).to.equal(2);
    const invalid = await api(h.app).post('/api/auth/token').send({ email: 'not-an-email' }).expect(422);
    expect(invalid.body.errors).to.have.property('password');
    expect(limitHeaders(invalid, 3)).to.equal(2);
  });
});

describe('Rate limit of data routes (x-rate-limit data)', () => {
  let h: Harness;

  before(async () => {
    h = await limitedApp();
  });

  it('When one token makes 6 requests, Then RateLimit-Remaining counts 4 to 0 and the 6th answers 429; another user is not limited', async () => {
    const [user, other] = [await createUser(h.db, { superAdmin: true }), await createUser(h.db, { superAdmin: true })];
    const remaining = [];
    for (let i = 0; i < 5; i++) remaining.push(limitHeaders(await api(h.app, { token: user.token }).get('/api/companies').expect(200), 5));
    expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
    tooMany(await api(h.app, { token: user.token }).get('/api/companies'), 5);
    tooMany(await api(h.app, { token: user.token }).get('/api/clients'), 5);
    const res = await api(h.app, { token: other.token }).get('/api/companies').expect(200);
    expect(limitHeaders(res, 5)).to.equal(4);
  });

  it('When the shared ETSM token acts for two companies, Then each company counts apart; without X-Company-Id the integration counts on its own, and the MDM token apart from it', async () => {
    const [a, b] = [await createWorld(h.app, h.db), await createWorld(h.app, h.db)];
    const reception = (company: number) => api(h.app, { token: ETSM_TEST_TOKEN, company }).post('/api/integrations/etsm/receptions').send({});
    const remaining = [];
    for (let i = 0; i < 5; i++) remaining.push(limitHeaders(await reception(a.client.id).expect(422), 5));
    expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
    tooMany(await reception(a.client.id), 5);
    expect(limitHeaders(await reception(b.client.id).expect(422), 5), 'another company').to.equal(4);
    expect(limitHeaders(await api(h.app, { token: ETSM_TEST_TOKEN }).get('/api/integrations/etsm/ping').expect(200), 5), 'no company').to.equal(4);
    const mdm = await api(h.app, { token: MDM_TEST_TOKEN, company: a.client.id }).patch('/api/integrations/mdm/articles/by-code/NONE').send({}).expect(404);
    expect(limitHeaders(mdm, 5), 'the other integration').to.equal(4);
  });

  it('When the shared ETSM token sends one company as 2, 02 and 002, Then they are one company and count together: the sixth answers 429', async () => {
    const world = await createWorld(h.app, h.db);
    const reception = (zeros: number) => api(h.app, { token: ETSM_TEST_TOKEN, company: `${'0'.repeat(zeros)}${world.client.id}` }).post('/api/integrations/etsm/receptions').send({});
    const remaining = [];
    for (let i = 0; i < 5; i++) remaining.push(limitHeaders(await reception(i % 3).expect(422), 5));
    expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
    tooMany(await reception(1), 5);
  });

  it('When the MDM token lists a client\'s articles with a different X-Company-Id each time, Then the header opens no bucket (the listing does not take it): the sixth answers 429', async () => {
    const world = await createWorld(h.app, h.db);
    const list = (i: number) => api(h.app, { token: MDM_TEST_TOKEN, company: 900_000 + i }).get(`/api/integrations/mdm/clients/${world.client.id}/articles?limit=1`);
    const remaining = [];
    for (let i = 0; i < 5; i++) remaining.push(limitHeaders(await list(i).expect(200), 5));
    expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
    tooMany(await list(5), 5);
  });

  it('When bulks of 20 articles and of 3 sales orders are sent, Then each counts as one request against the data limit', async () => {
    const world = await createWorld(h.app, h.db);
    const items = Array.from({ length: 20 }, (_, i) => ({ article_code: `RL-BULK-${i}-${randomBytes(3).toString('hex')}`, description: 'Counted once', um3pl: 'BUC' }));
    const articles = await world.as('operator').post('/api/articles/bulk').send({ items }).expect(200);
    expect(articles.body.meta.created).to.equal(20);
    expect(limitHeaders(articles, 5)).to.equal(4);
    const order = (i: number) => ({ partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], internal_code: `RL-SO-${i}-${randomBytes(3).toString('hex')}`, items: [{ article_id: articles.body.data[i].id, um3pl: 'BUC', quantity_um3pl: 1 }] });
    const orders = await world.as('operator').post('/api/sales-orders/bulk').send({ items: [order(0), order(1), order(2)] }).expect(200);
    expect(orders.body.meta.created).to.equal(3);
    expect(limitHeaders(orders, 5)).to.equal(3);
  });

  it('When a data request is refused with 401, Then it carries the RateLimit headers too', async () => {
    const res = await api(h.app, { token: 'not-a-real-token' }).get('/api/companies').expect(401);
    expect(limitHeaders(res, 5)).to.equal(4);
  });
});

describe('Operations with x-rate-limit none', () => {
  it('When GET /health is called far beyond both limits, even with an exhausted token, Then it always answers 200 without RateLimit headers', async () => {
    const h = await limitedApp();
    const user = await createUser(h.db, { superAdmin: true });
    for (let i = 0; i < 6; i++) await api(h.app, { token: user.token }).get('/api/companies');
    for (let i = 0; i < 12; i++) {
      const res = await api(h.app, { token: user.token }).get(i % 2 ? '/health' : '/up').expect(200);
      expect(Object.keys(res.headers).filter((k) => k.startsWith('ratelimit') || k === 'retry-after')).to.deep.equal([]);
    }
  });
});

describe('Rate limits in Redis (REDIS_URL)', () => {
  const connections: RedisConnection[] = [];
  let a: Harness;
  let b: Harness;

  before(async function () {
    if (!(await redisAnswers(testEnv.redisUrl))) {
      if (testEnv.ci) throw new Error(`Redis is not reachable at ${testEnv.redisUrl} (required under CI=true)`);
      console.warn(`    Redis is not reachable at ${testEnv.redisUrl}: the Redis rate-limit tests are skipped`);
      this.skip();
    }
    for (let i = 0; i < 2; i++) connections.push(await connectRedis(testEnv.redisUrl, silent));
    // connectRedis waits for the connection only briefly; a count sent before it is ready fails
    // open (no RateLimit headers), which these tests would read as a missing limit.
    for (const connection of connections) await until(() => connection.ping(), 10_000, 'the Redis connection to be ready');
    a = await limitedApp({ redis: connections[0] }, { REDIS_URL: testEnv.redisUrl });
    b = await limitedApp({ redis: connections[1] }, { REDIS_URL: testEnv.redisUrl });
    // Each store loads its Lua scripts with its first count; on a loaded machine that first
    // round trip can pass the command timeout and be counted in the process instead. Load them
    // before the tests count.
    for (const h of [a, b]) {
      const warm = await createUser(h.db, { superAdmin: true });
      await api(h.app, { token: warm.token }).get('/api/companies').expect(200);
    }
  });

  after(async () => {
    await Promise.all(connections.map((c) => c.close()));
  });

  it('When data requests with one token are split across two instances, Then they share one count and both answer 429', async () => {
    const user = await createUser(a.db, { superAdmin: true });
    const remaining = [];
    for (let i = 0; i < 5; i++) remaining.push(limitHeaders(await api(i % 2 ? b.app : a.app, { token: user.token }).get('/api/companies').expect(200), 5));
    expect(remaining).to.deep.equal([4, 3, 2, 1, 0]);
    tooMany(await api(b.app, { token: user.token }).get('/api/companies'), 5);
    tooMany(await api(a.app, { token: user.token }).get('/api/companies'), 5);
  });

  it('When logins of one email are split across two instances, Then the 4th answers 429 on either', async () => {
    const user = await createUser(a.db);
    await login(a, user.email).expect(422);
    await login(b, user.email).expect(422);
    await login(a, user.email).expect(422);
    tooMany(await login(b, user.email, TEST_PASSWORD), 3);
    tooMany(await login(a, user.email, TEST_PASSWORD), 3);
  });

  it('When invented tokens from one address are split across two instances, Then their failures count together and both refuse the address', async () => {
    const [c, d] = [
      await limitedApp({ redis: connections[0] }, { REDIS_URL: testEnv.redisUrl, RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '4', TRUST_PROXY: 'true' }),
      await limitedApp({ redis: connections[1] }, { REDIS_URL: testEnv.redisUrl, RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '4', TRUST_PROXY: 'true' }),
    ];
    // An address of this run alone, so that no other run's failures are in Redis under it.
    const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const invented = (app: Harness) => api(app.app, { token: `3pl_pat_${randomBytes(32).toString('base64url')}` }).get('/api/companies').set('X-Forwarded-For', address);
    for (let i = 0; i < 4; i++) await invented(i % 2 ? d : c).expect(401);
    await until(async () => (await invented(c)).status === 429, 5000, 'the failures to be counted');
    expect((await invented(d)).status).to.equal(429);
  });

  it('When a token works on one instance and invented tokens from its address put the address over the ceiling on both, Then the token is still answered on the other instance; a token no instance has seen work waits', async () => {
    const [c, d] = [
      await limitedApp({ redis: connections[0] }, { REDIS_URL: testEnv.redisUrl, RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '4', TRUST_PROXY: 'true' }),
      await limitedApp({ redis: connections[1] }, { REDIS_URL: testEnv.redisUrl, RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '4', TRUST_PROXY: 'true' }),
    ];
    const [active, newcomer] = [await createUser(c.db, { superAdmin: true }), await createUser(c.db, { superAdmin: true })];
    const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const from = (app: Harness, token: string) => api(app.app, { token }).get('/api/companies').set('X-Forwarded-For', address);
    await from(c, active.token).expect(200);
    for (let i = 0; i < 4; i++) await from(i % 2 ? d : c, `3pl_pat_${randomBytes(32).toString('base64url')}`).expect(401);
    await until(async () => (await from(d, `3pl_pat_${randomBytes(32).toString('base64url')}`)).status === 429, 5000, 'the failures to be counted');
    await from(d, active.token).expect(200);
    await from(c, active.token).expect(200);
    expect((await from(d, newcomer.token)).status).to.equal(429);
  });

  it('When Redis was down as the app started and then answers, Then the data limit is counted in this process meanwhile, and in Redis again after', async () => {
    let down = true;
    const real = connections[0]!;
    const flaky: RedisConnection = {
      sendCommand: (args) => (down ? Promise.reject(new Error('The client is offline')) : real.sendCommand(args)),
      ping: async () => !down && real.ping(),
      close: async () => undefined,
    };
    const h = await limitedApp({ redis: flaky }, { REDIS_URL: testEnv.redisUrl });
    const user = await createUser(h.db, { superAdmin: true });
    const statuses = async (app: Harness) => {
      const seen = [];
      for (let i = 0; i < 6; i++) seen.push((await api(app.app, { token: user.token }).get('/api/companies')).status);
      return seen;
    };
    expect(await statuses(h), 'Redis down: counted in this process').to.deep.equal([200, 200, 200, 200, 200, 429]);
    down = false;
    expect(await statuses(h), 'Redis back: counted in Redis, from 0').to.deep.equal([200, 200, 200, 200, 200, 429]);
    tooMany(await api(b.app, { token: user.token }).get('/api/companies'), 5);
  });
});

describe('Rate limits with REDIS_URL set and Redis down', () => {
  let pending: Promise<RedisConnection> | undefined;

  after(async () => {
    await (await pending)?.close();
  });

  it('When REDIS_URL points at a port where no Redis listens, Then data requests are counted in this process (429 beyond the limit), promptly', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    pending = connectRedis(url, silent);
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`connectRedis(${url}) did not resolve within 5 s: with Redis down the app cannot even be built`)), 5000).unref(),
    );
    const h = await limitedApp({ redis: await Promise.race([pending, timeout]) }, { REDIS_URL: url });
    const user = await createUser(h.db, { superAdmin: true });
    for (let i = 0; i < 5; i++) await api(h.app, { token: user.token }).get('/api/companies').timeout(3000).expect(200);
    tooMany(await api(h.app, { token: user.token }).get('/api/companies').timeout(3000), 5);
  });

  it('When every command to the Redis store fails, Then data requests and logins beyond the limits answer 429 (counted in this process), never unlimited', async () => {
    const redis: RedisConnection = { sendCommand: () => Promise.reject(new Error('The client is offline')), ping: async () => false, close: async () => undefined };
    const h = await limitedApp({ redis });
    const user = await createUser(h.db, { superAdmin: true });
    for (let i = 0; i < 5; i++) await api(h.app, { token: user.token }).get('/api/companies').timeout(3000).expect(200);
    tooMany(await api(h.app, { token: user.token }).get('/api/companies').timeout(3000), 5);
    for (let i = 0; i < 3; i++) await login(h, user.email).timeout(3000).expect(422);
    tooMany(await login(h, user.email, TEST_PASSWORD).timeout(3000), 3);
  });
});
