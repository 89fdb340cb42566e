/**
 * REDIS_URL set and Redis down. The app reaches the local Redis through a TCP proxy
 * (test/helpers/tcp-proxy.ts) that the tests cut (connections reset, new ones refused), black-hole
 * and restore. As documented in src/platform/http/rate-limit-store.ts and src/platform/redis.ts:
 * with Redis down the rate limits are counted in the process, with a logged warning (never
 * lifted), health shows redis and cache false (200, degraded), and once Redis is back the counts
 * are Redis's again (shared with another instance), with no restart. A token revoked while the
 * link is cut reaches the other instances once Redis takes the change again, not after the TTL.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import type { Response } from 'supertest';
import { SETTLE_MS } from '../../src/components/auth/auth.cache.js';
import { createInstanceAuthCache } from '../../src/components/auth/auth.invalidation.js';
import { connectRedis, type RedisConnection } from '../../src/platform/redis.js';
import { api, unchecked } from '../helpers/api.js';
import { createUser } from '../helpers/factories.js';
import { buildApp, testConfig, type Harness } from '../helpers/harness.js';
import { redisAnswers, until } from '../helpers/net.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { testEnv } from '../helpers/test-env.js';

const LIMIT = 5;
/** A rate-limited request must still answer within this while Redis is down. */
const DOWN_BOUND_MS = 2000;
/** LIMIT + 3 requests of one token: the limit holds, counted wherever it is counted. */
const LIMITED = [200, 200, 200, 200, 200, 429, 429, 429];
const COUNTED_HERE = 'redis is not answering: rate limits are counted in this process until it is back';

interface LogLine {
  level: number;
  msg: string;
  err?: { message?: string };
}

describe('Redis down with REDIS_URL set (behind a TCP proxy)', function () {
  this.timeout(60_000);
  const lines: LogLine[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  let proxy: TcpProxy | undefined;
  let redis: RedisConnection | undefined;
  let direct: RedisConnection | undefined;
  let h: Harness;
  /** Another instance, on a connection to Redis that is never cut. */
  let other: Harness;

  /** N data requests with a new token (the last `elsewhere` of them to the other instance): their statuses and the slowest time. */
  async function burst(count: number, elsewhere = 0): Promise<{ statuses: number[]; slowestMs: number; errors: string[] }> {
    const user = await createUser(h.db, { superAdmin: true });
    const statuses: number[] = [];
    const errors: string[] = [];
    let slowestMs = 0;
    for (let i = 0; i < count; i++) {
      const started = Date.now();
      const res: Response | Error = await unchecked(i < count - elsewhere ? h.app : other.app, { token: user.token })
        .get('/api/companies')
        .timeout(DOWN_BOUND_MS + 1000)
        .then((r) => r, (e: Error) => e);
      slowestMs = Math.max(slowestMs, Date.now() - started);
      if (res instanceof Error) errors.push(res.message);
      else statuses.push(res.status);
    }
    return { statuses, slowestMs, errors };
  }

  const health = async () => (await api(h.app).get('/health').timeout(5000)).body as { status: string; checks: Record<string, boolean> };

  before(async function () {
    if (!(await redisAnswers(testEnv.redisUrl))) {
      if (testEnv.ci) throw new Error(`Redis is not reachable at ${testEnv.redisUrl} (required under CI=true)`);
      console.warn(`    Redis is not reachable at ${testEnv.redisUrl}: the Redis fault tests are skipped`);
      this.skip();
    }
    const target = new URL(testEnv.redisUrl);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const url = `redis://127.0.0.1:${proxy.port}`;
    redis = await connectRedis(url, logger);
    h = await buildApp({ config: testConfig({ REDIS_URL: url, RATE_LIMIT_DATA_PER_MINUTE: String(LIMIT) }), deps: { redis, logger } });
    direct = await connectRedis(testEnv.redisUrl, pino({ level: 'silent' }));
    other = await buildApp({ config: testConfig({ REDIS_URL: testEnv.redisUrl, RATE_LIMIT_DATA_PER_MINUTE: String(LIMIT) }), deps: { redis: direct } });
    await until(() => direct!.ping(), 10_000, 'the direct Redis connection to be ready');
    // "Redis is up" starts when the app's connection is ready: connectRedis waits for it only briefly.
    await until(async () => (await health()).checks.redis === true, 10_000, 'health to show redis true at start');
  });

  afterEach(async () => {
    await proxy?.restore();
  });

  after(async () => {
    await proxy?.restore();
    await redis?.close();
    await direct?.close();
    await proxy?.close();
  });

  it('When Redis is up, Then the data limit is counted in it, shared with the other instance (the 6th request answers 429 there), and health shows redis true', async () => {
    lines.length = 0;
    const { statuses } = await burst(LIMIT + 1, 1);
    expect(statuses, `warnings: ${JSON.stringify(lines.map((l) => [l.msg, l.err?.message]))}`).to.deep.equal([200, 200, 200, 200, 200, 429]);
    expect((await health()).checks).to.include({ redis: true, cache: true, database: true });
  });

  it(`When the link to Redis is cut, Then the data limit is counted in this process (429 beyond it) within ${DOWN_BOUND_MS} ms, a warning is logged once, and health answers 200 degraded with redis and cache false`, async () => {
    lines.length = 0;
    proxy!.cut('reset');
    const { statuses, slowestMs, errors } = await burst(LIMIT + 3);
    expect(errors).to.deep.equal([]);
    expect(statuses).to.deep.equal(LIMITED);
    expect(slowestMs).to.be.below(DOWN_BOUND_MS);
    const warnings = lines.filter((l) => l.level === 40).map((l) => l.msg);
    expect(warnings.filter((m) => m === COUNTED_HERE), `warnings: ${JSON.stringify(warnings)}`).to.have.length(1);
    expect(warnings).to.include('redis connection error');
    const res = await api(h.app).get('/health').expect(200);
    expect(res.body.status).to.equal('degraded');
    expect(res.body.checks).to.include({ redis: false, cache: false, database: true });
  });

  it('When the link is cut part-way through a client\'s minute, Then this process goes on from the requests Redis had counted (it counts them too), not from zero', async () => {
    // Counting in Redis again after the last test's cut.
    await until(async () => (await health()).checks.redis === true, 10_000, 'health to show redis true');
    const user = await createUser(h.db, { superAdmin: true });
    const request = async () => (await unchecked(h.app, { token: user.token }).get('/api/companies').timeout(DOWN_BOUND_MS + 1000)).status;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push(await request());
    proxy!.cut('reset');
    for (let i = 0; i < 3; i++) statuses.push(await request());
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
  });

  it('When Redis is back after a cut, Then health shows redis true and the counts are in Redis again (shared with the other instance), on its own', async () => {
    proxy!.cut('reset');
    await burst(2);
    lines.length = 0;
    await proxy!.restore();
    await until(async () => (await health()).checks.redis === true, 10_000, 'health to show redis true');
    expect((await burst(LIMIT + 1, 1)).statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
    expect(lines.map((l) => l.msg)).to.include('redis answers again: rate limits are counted in redis');
  });

  it('When the event loop is blocked past the command timeout while Redis answers, Then the answer wins: no timeout, no new connection', async () => {
    // Straight to Redis: the test's TCP proxy runs on this event loop and would be blocked too.
    const own = await connectRedis(testEnv.redisUrl, logger);
    try {
      await until(() => own.ping(), 10_000, 'the connection to be ready');
      lines.length = 0;
      const reply = own.sendCommand(['PING']);
      // The loop reads no socket while it is busy (node-redis writes the command at its next turn).
      const busyUntil = Date.now() + 900; // past the 500 ms command timeout, as a start-up compiling validators
      while (Date.now() < busyUntil) {
        // busy
      }
      expect(await reply).to.equal('PONG');
      expect(lines.map((l) => l.msg)).to.not.include('redis did not answer in time; connecting again');
    } finally {
      await own.close();
    }
  });

  it('When a token is revoked while the link is cut, Then an instance whose subscription stayed live refuses it once the link is back (the change is sent again), not after the auth cache TTL', async () => {
    const proxied = `redis://127.0.0.1:${proxy!.port}`;
    const configOf = (url: string) => testConfig({ REDIS_URL: url, AUTH_CACHE_TTL_SECONDS: '60' });
    const here = createInstanceAuthCache(configOf(proxied), redis, pino({ level: 'silent' }));
    const there = createInstanceAuthCache(configOf(testEnv.redisUrl), direct, pino({ level: 'silent' }));
    try {
      const hereApp = await buildApp({ config: configOf(proxied), deps: { redis, authCache: here.cache } });
      const thereApp = await buildApp({ config: configOf(testEnv.redisUrl), deps: { redis: direct, authCache: there.cache } });
      await until(async () => here.following() && there.following(), 10_000, 'both instances to follow the auth changes');
      // Going live forgets everything, and a lookup within SETTLE_MS of that is not kept.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 50));
      const user = await createUser(h.db, { superAdmin: true });
      await api(thereApp.app, { token: user.token }).get('/api/companies').expect(200);
      proxy!.cut('reset');
      await api(hereApp.app, { token: user.token }).post('/api/auth/revoke').expect(200);
      // The other instance's own link never broke: its subscription is live, so it trusts its entry.
      expect((await unchecked(thereApp.app, { token: user.token }).get('/api/companies')).status, 'still cached there while the change cannot travel').to.equal(200);
      await proxy!.restore();
      const restored = Date.now();
      await until(async () => (await unchecked(thereApp.app, { token: user.token }).get('/api/companies')).status === 401, 15_000, 'the other instance to refuse the revoked token');
      expect(Date.now() - restored, 'refused well before the 60 s TTL').to.be.below(15_000);
    } finally {
      await here.close();
      await there.close();
    }
  });

  it(`When Redis stops answering (a black hole), Then data requests are limited in this process within ${DOWN_BOUND_MS} ms each, health shows redis false, and once it answers the counts are in Redis again`, async () => {
    await burst(1); // the client is connected and ready
    lines.length = 0;
    proxy!.cut('blackhole');
    const started = Date.now();
    const checks = (await health()).checks;
    expect(Date.now() - started, 'health answers within its check timeout').to.be.below(3000);
    expect(checks).to.include({ redis: false, database: true });
    const { statuses, slowestMs, errors } = await burst(LIMIT + 3);
    expect(errors, `slowest ${slowestMs} ms`).to.deep.equal([]);
    expect(statuses).to.deep.equal(LIMITED);
    expect(slowestMs).to.be.below(DOWN_BOUND_MS);
    expect(lines.map((l) => l.msg)).to.include.members(['redis did not answer in time; connecting again', COUNTED_HERE]);

    await proxy!.restore();
    await until(async () => (await health()).checks.redis === true, 10_000, 'health to show redis true');
    expect((await burst(LIMIT + 1, 1)).statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
  });
});
