/**
 * Abuse limits. The login takes as long for an unknown email as for a wrong password (no probing
 * for accounts by time), and its per-address limit cannot be dodged with X-Forwarded-For unless
 * TRUST_PROXY says a proxy sets it. Failed authentications are limited per client address
 * (src/platform/http/failed-auth-limit.ts): invented tokens and guesses of the shared integration
 * secrets get 429 once an address is over the ceiling, without being looked up.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { api } from '../helpers/api.js';
import { createUser, TEST_PASSWORD, unique } from '../helpers/factories.js';
import { buildApp, ETSM_TEST_TOKEN, testConfig, type Harness } from '../helpers/harness.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('Abuse limits of the login', () => {
  it('When an unknown email and a known email with a wrong password log in, Then both take about as long (the unknown one is not answered early)', async () => {
    const h = await buildApp();
    const user = await createUser(h.db);
    const timed = async (email: string): Promise<number> => {
      const started = process.hrtime.bigint();
      await api(h.app).post('/api/auth/token').send({ email, password: 'wrong-password' }).expect(422);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    await timed(user.email); // the first hash warms up
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 9; i++) {
      known.push(await timed(user.email));
      unknown.push(await timed(`${unique('nobody-')}@example.test`));
    }
    // The leak this guards against is an unknown email answered without the hash: a few percent
    // of the time. The bounds leave room for a busy machine (scrypt runs on libuv's thread pool,
    // shared with everything else there), which has put single medians 1.7x apart.
    const ratio = median(unknown) / median(known);
    expect(ratio, `median ms: unknown ${median(unknown).toFixed(1)}, known ${median(known).toFixed(1)}`).to.be.within(0.5, 2.5);
  });

  it('When X-Forwarded-For changes on every login without TRUST_PROXY, Then the limit of the address still applies', async () => {
    const h: Harness = await buildApp({ config: testConfig({ RATE_LIMIT_AUTH_PER_MINUTE: '3' }) });
    const user = await createUser(h.db);
    const from = (address: string) => api(h.app).post('/api/auth/token').set('X-Forwarded-For', address).send({ email: user.email, password: 'wrong-password' });
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) await from(address).expect(422);
    const fourth = await from('203.0.113.4');
    expect(fourth.status, fourth.text).to.equal(429);
  });
});

describe('Logins per client address and password checks at once', () => {
  it('When one address logs in with a new email each time, Then beyond its per-address ceiling it answers 429 with Retry-After (no password is checked); another address still logs in', async () => {
    const h = await buildApp({ config: testConfig({ RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '5', TRUST_PROXY: 'true' }) });
    const user = await createUser(h.db);
    const from = (address: string, email: string, password = 'wrong-password') =>
      api(h.app).post('/api/auth/token').set('X-Forwarded-For', address).send({ email, password });
    for (let i = 0; i < 5; i++) await from('203.0.113.20', `${unique('nobody-')}@example.test`).expect(422);
    const sixth = await from('203.0.113.20', user.email, TEST_PASSWORD).expect(429);
    expect(Number(sixth.headers['retry-after'])).to.be.within(1, 60);
    expect(sixth.body.message).to.equal(`Too many requests. Try again in ${sixth.headers['retry-after']} seconds.`);
    await from('198.51.100.20', user.email, TEST_PASSWORD).expect(200);
  });

  it('When one address logs in with a new email each time, Then the 31st answers 429 with the RateLimit-* headers of the per-address limit, and the answers before show the tighter budget', async () => {
    const h = await buildApp({ config: testConfig({ RATE_LIMIT_AUTH_PER_MINUTE: '10', RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '30' }) });
    const login = () => api(h.app).post('/api/auth/token').send({ email: `${unique('nobody-')}@example.test`, password: 'wrong-password' });
    const budgets: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await login().expect(422);
      budgets.push(`${res.headers['ratelimit-policy']} ${res.headers['ratelimit-remaining']}`);
    }
    // The email's 10 while it has fewer left, the address's 30 once it has fewer than 9 left.
    expect(budgets.slice(0, 2).concat(budgets.slice(20, 23), budgets.slice(29))).to.deep.equal(['10;w=60 9', '10;w=60 9', '10;w=60 9', '30;w=60 8', '30;w=60 7', '30;w=60 0']);
    const refused = await login().expect(429);
    const retry = refused.headers['retry-after'];
    expect(Number(retry)).to.be.within(1, 60);
    const headers = ['ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((name) => refused.headers[name]);
    expect(headers).to.deep.equal(['30;w=60', '30', '0', retry]);
  });

  it('When more logins arrive at once than the password checks and their line allow, Then the rest answer 503 with Retry-After: 1 at once, and the others are answered as usual', async () => {
    const h = await buildApp({ config: testConfig({ LOGIN_HASH_CONCURRENCY: '1', LOGIN_HASH_QUEUE: '1' }) });
    const user = await createUser(h.db);
    const logins = Array.from({ length: 20 }, (_, i) => ({ email: i === 0 ? user.email : `${unique('nobody-')}@example.test`, password: i === 0 ? TEST_PASSWORD : 'wrong-password' }));
    const answers = await Promise.all(logins.map((body) => api(h.app).post('/api/auth/token').send(body)));
    const busy = answers.filter((res) => res.status === 503);
    expect(busy.length, `statuses ${answers.map((res) => res.status).join(' ')}`).to.be.at.least(1);
    for (const res of busy) {
      expect(res.headers['retry-after']).to.equal('1');
      expect(res.body).to.deep.equal({ message: 'Too many logins are being checked at once. Try again in 1 second.' });
    }
    const otherwise = answers.flatMap((res, i) => (res.status === 503 || res.status === (i === 0 ? 200 : 422) ? [] : [[i, res.status]]));
    expect(otherwise, 'answered otherwise than 200 (the right password), 422 or 503').to.deep.equal([]);
    expect(answers.length - busy.length, 'answered as usual').to.be.at.least(2);
    await api(h.app).post('/api/auth/token').send({ email: user.email, password: TEST_PASSWORD }).expect(200);
  });

  it('When logins are answered 503 because too many passwords are being checked, Then those do not count against the login limits, and the wrong passwords do', async () => {
    const h = await buildApp({ config: testConfig({ LOGIN_HASH_CONCURRENCY: '1', LOGIN_HASH_QUEUE: '1', RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '20' }) });
    const login = () => api(h.app).post('/api/auth/token').send({ email: `${unique('nobody-')}@example.test`, password: 'wrong-password' });
    const statuses = (await Promise.all(Array.from({ length: 20 }, login))).map((res) => res.status);
    const checked = statuses.filter((status) => status === 422).length;
    expect(checked + statuses.filter((status) => status === 503).length, `statuses ${statuses.join(' ')}`).to.equal(20);
    expect(checked, `statuses ${statuses.join(' ')}`).to.be.below(20);
    const next = await login().expect(422);
    expect([next.headers['ratelimit-policy'], next.headers['ratelimit-remaining']]).to.deep.equal(['20;w=60', String(20 - checked - 1)]);
  });
});

const CEILING = 5;
const inventedToken = (): string => `3pl_pat_${randomBytes(32).toString('base64url')}`;

/**
 * A 429 of the failed-authentication ceiling: Retry-After within the minute, the message saying why,
 * and the ceiling's own RateLimit-* headers (the limit, none left, the seconds until it resets).
 */
function heldBack(res: Response): void {
  expect(res.status, res.text).to.equal(429);
  const retry = Number(res.headers['retry-after']);
  expect(retry, 'Retry-After').to.be.within(1, 60);
  expect([res.headers['ratelimit-policy'], res.headers['ratelimit-limit'], res.headers['ratelimit-remaining'], res.headers['ratelimit-reset']]).to.deep.equal([`${CEILING};w=60`, String(CEILING), '0', String(retry)]);
  expect(res.body).to.deep.equal({ message: `Too many failed authentications from this address. Try again in ${retry} seconds.` });
}

describe('Failed authentications per client address', () => {
  let h: Harness;
  /** Token look-ups in the database since the last reset. */
  let lookups = 0;

  before(async () => {
    h = await buildApp({ config: testConfig({ RATE_LIMIT_FAILED_AUTH_PER_MINUTE: String(CEILING), TRUST_PROXY: 'true' }) });
    h.db.on('query', (query: { sql: string }) => {
      if (/personal_access_tokens/.test(query.sql)) lookups++;
    });
  });

  const from = (address: string, token: string) => api(h.app, { token }).get('/api/companies').set('X-Forwarded-For', address);

  it(`When 150 invented tokens come from one address, Then the first ${CEILING} answer 401 and the rest 429 with Retry-After, without a look-up`, async () => {
    lookups = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await from('203.0.113.10', inventedToken());
      if (res.status === 429) heldBack(res);
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 401)).to.have.length(CEILING);
    expect(statuses.slice(CEILING)).to.deep.equal(Array<number>(150 - CEILING).fill(429));
    expect(lookups, 'token look-ups').to.equal(CEILING);
  });

  it('When 150 guesses of the shared ETSM secret come from one address, Then only the ceiling is checked, and the secret itself is then refused from there too', async () => {
    const guesses: number[] = [];
    for (let i = 0; i < 150; i++) guesses.push((await api(h.app, { token: `etsm-guess-${i}` }).get('/api/integrations/etsm/ping').set('X-Forwarded-For', '203.0.113.11')).status);
    expect(guesses.filter((s) => s === 401)).to.have.length(CEILING);
    expect(guesses.filter((s) => s === 429)).to.have.length(150 - CEILING);
    heldBack(await api(h.app, { token: ETSM_TEST_TOKEN }).get('/api/integrations/etsm/ping').set('X-Forwarded-For', '203.0.113.11'));
  });

  it('When an address is over the ceiling, Then another address is not held back, and a valid token is answered there', async () => {
    const user = await createUser(h.db, { superAdmin: true });
    for (let i = 0; i < CEILING; i++) await from('203.0.113.12', inventedToken()).expect(401);
    heldBack(await from('203.0.113.12', inventedToken()));
    await from('198.51.100.12', inventedToken()).expect(401);
    await from('198.51.100.12', user.token).expect(200);
  });

  it('When a flood of invented tokens shares the address of a caller whose token works, Then that caller keeps being answered; a token not yet seen working waits for the window', async () => {
    const [active, newcomer] = [await createUser(h.db, { superAdmin: true }), await createUser(h.db, { superAdmin: true })];
    await from('203.0.113.13', active.token).expect(200);
    for (let i = 0; i < CEILING + 20; i++) await from('203.0.113.13', inventedToken());
    heldBack(await from('203.0.113.13', inventedToken()));
    await from('203.0.113.13', active.token).expect(200);
    heldBack(await from('203.0.113.13', newcomer.token));
  });

  it('When an address is over the ceiling, Then an operation that takes a token without needing one (the discovery index) answers the documented 429 too', async () => {
    for (let i = 0; i < CEILING; i++) await api(h.app, { token: inventedToken() }).get('/api').set('X-Forwarded-For', '203.0.113.15').expect(401);
    heldBack(await api(h.app, { token: inventedToken() }).get('/api').set('X-Forwarded-For', '203.0.113.15'));
    await api(h.app).get('/api').set('X-Forwarded-For', '203.0.113.15').expect(200);
  });

  it('When requests carry no credential, Then the ceiling does not apply to them (they are refused without a look-up anyway)', async () => {
    for (let i = 0; i < CEILING; i++) await from('203.0.113.14', inventedToken()).expect(401);
    await api(h.app).get('/api/companies').set('X-Forwarded-For', '203.0.113.14').expect(401);
    await api(h.app).get('/health').set('X-Forwarded-For', '203.0.113.14').expect(200);
  });
});
