/**
 * Two API instances in one process, sharing the run's database and one Redis, each with its own
 * auth cache (AUTH_CACHE_TTL_SECONDS=10, the default): what one instance or the operator CLI
 * changes is refused by the other within 1 s, also after the other's Redis link dropped and came
 * back. Instance B reaches Redis through a TCP proxy that the tests cut.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { pino } from 'pino';
import type { Express } from 'express';
import { api } from '../helpers/api.js';
import { createUser, createWorld, unique, type TestUser, type World } from '../helpers/factories.js';
import { buildApp, testConfig } from '../helpers/harness.js';
import { redisAnswers, until } from '../helpers/net.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { testEnv } from '../helpers/test-env.js';
import { connectRedis, ECHO_LOST_AFTER_MS, type RedisConnection } from '../../src/platform/redis.js';
import { SETTLE_MS, UNFOLLOWED_TRUST_MS } from '../../src/components/auth/auth.cache.js';
import { announceAuthChanges, createInstanceAuthCache, type InstanceAuthCache } from '../../src/components/auth/auth.invalidation.js';
import { runCli } from '../../src/cli/run.js';

const silent = pino({ level: 'silent' });
const WITHIN_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Instance {
  app: Express;
  auth: InstanceAuthCache;
  redis: RedisConnection;
}

describe('Auth caches of two instances kept in step through Redis', function () {
  this.timeout(60_000);
  const prefix = unique(`tpl-test-${process.pid}-`);
  let proxy: TcpProxy;
  let a: Instance;
  let b: Instance;
  let world: World;
  let db: Knex;

  async function instance(redisUrl: string): Promise<Instance> {
    const config = testConfig({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, AUTH_CACHE_TTL_SECONDS: '10' });
    const redis = await connectRedis(redisUrl, silent);
    const auth = createInstanceAuthCache(config, redis, silent);
    const { app } = await buildApp({ config, deps: { redis, authCache: auth.cache } });
    return { app, auth, redis };
  }

  before(async function () {
    if (!(await redisAnswers(testEnv.redisUrl))) {
      if (testEnv.ci) throw new Error(`Redis is not reachable at ${testEnv.redisUrl} (required under CI=true)`);
      this.skip();
    }
    const { hostname, port } = new URL(testEnv.redisUrl);
    proxy = await startTcpProxy({ host: hostname, port: Number(port || 6379) });
    a = await instance(testEnv.redisUrl);
    b = await instance(`redis://127.0.0.1:${proxy.port}`);
    await until(() => a.auth.following() && b.auth.following(), 10_000, 'both instances subscribed');
    const h = await buildApp();
    db = h.db;
    world = await createWorld(h.app, h.db);
  });

  after(async () => {
    for (const i of [a, b]) {
      await i?.auth.close();
      await i?.redis.close();
    }
    await proxy?.close();
  });

  afterEach(async () => {
    await proxy?.restore();
  });

  const get = (i: Instance, token: string) => api(i.app, { token, company: world.client.id }).get('/api/articles');
  /** An empty create: 403 to a viewer (the role is checked first), 422 to an operator. */
  const write = (i: Instance, token: string) => api(i.app, { token, company: world.client.id }).post('/api/articles').send({});

  /** Both instances answer `status` to the user, so each has the token and the access cached (no change settling). */
  async function cached(user: TestUser): Promise<void> {
    await sleep(SETTLE_MS);
    for (const i of [a, b]) for (let n = 0; n < 2; n++) await get(i, user.token).expect(200);
  }

  /** Polls until the request answers `status`; answers the ms it took (failing past `limitMs`). */
  async function answers(request: () => ReturnType<typeof get>, status: number, limitMs = WITHIN_MS): Promise<number> {
    let last = 0;
    const took = await until(async () => (last = (await request()).status) === status, limitMs, `${status} (last answer ${last})`, 20);
    expect(took).to.be.at.most(limitMs);
    return took;
  }

  /** The operator CLI in-process on the run's database, publishing its changes as main.ts does with REDIS_URL set. */
  async function cli(...argv: string[]): Promise<void> {
    const errors: string[] = [];
    const code = await runCli(argv, {
      out: () => undefined,
      err: (line) => void errors.push(line),
      database: () => db,
      announce: async (changes) => void (await announceAuthChanges(testEnv.redisUrl, prefix, changes)),
    });
    expect([code, errors]).to.deep.equal([0, []]);
  }

  const operator = async () => createUser(db, { memberships: [[world.client.id, 'operator']] });

  it('When a token is revoked on instance A, Then instance B, which had it cached for 10 s, refuses it within 1 s', async () => {
    const user = await operator();
    await cached(user);
    await api(a.app, { token: user.token }).post('/api/auth/revoke').expect(200);
    await get(a, user.token).expect(401);
    const took = await answers(() => get(b, user.token), 401);
    console.log(`      [${testEnv.engine}] revoked on A, refused by B after ${took} ms`);
  });

  it('When the CLI switches a module off and on again (REDIS_URL set), Then both instances follow within 1 s each time', async () => {
    const user = await operator();
    await cached(user);
    await cli('set-module', '--company', String(world.client.id), '--module', 'articles', '--off');
    for (const i of [a, b]) await answers(() => get(i, user.token), 403);
    // Each instance now has the access with the module off cached (a 403 of the module check).
    await sleep(SETTLE_MS);
    for (const i of [a, b]) await get(i, user.token).expect(403);
    await cli('set-module', '--company', String(world.client.id), '--module', 'articles', '--on');
    for (const i of [a, b]) await answers(() => get(i, user.token), 200);
  });

  it('When the CLI changes a role from operator to viewer, Then both instances refuse a write within 1 s', async () => {
    const user = await operator();
    await cached(user);
    for (const i of [a, b]) await write(i, user.token).expect(422);
    await cli('add-member', '--user', user.email, '--company', String(world.client.id), '--role', 'viewer');
    for (const i of [a, b]) await answers(() => write(i, user.token), 403);
  });

  it('When the CLI revokes every token of a user, Then both instances refuse them within 1 s', async () => {
    const user = await operator();
    await cached(user);
    await cli('revoke-token', '--user', user.email, '--all');
    for (const i of [a, b]) await answers(() => get(i, user.token), 401);
  });

  it('When the CLI deactivates a user, Then both instances refuse its tokens within 1 s', async () => {
    const user = await operator();
    await cached(user);
    await cli('deactivate-user', '--user', user.email);
    for (const i of [a, b]) await answers(() => get(i, user.token), 401);
  });

  it('When the CLI removes a membership, Then both instances refuse that company within 1 s and still serve the other', async () => {
    const user = await createUser(db, { memberships: [[world.client.id, 'operator'], [world.otherClient.id, 'operator']] });
    await cached(user);
    await cli('remove-member', '--user', user.email, '--company', String(world.client.id), '--primary', String(world.otherClient.id));
    for (const i of [a, b]) await answers(() => get(i, user.token), 403);
    for (const i of [a, b]) await api(i.app, { token: user.token, company: world.otherClient.id }).get('/api/articles').expect(200);
  });

  it('When the CLI creates a client, Then it announces the provider (whose members now reach one more client)', async () => {
    const seen: unknown[] = [];
    const code = await runCli(['create-client', '--provider', String(world.provider.id), '--name', unique('Late client ')], {
      out: () => undefined,
      err: () => undefined,
      database: () => db,
      announce: async (changes) => void seen.push(...changes),
    });
    expect(code).to.equal(0);
    expect(seen).to.deep.equal([{ kind: 'company', companyId: world.provider.id }]);
  });

  it(`When B's link to Redis is cut, Then B stops following, trusts its cache at most ${UNFOLLOWED_TRUST_MS} ms (a revocation on A is refused by B within 1 s anyway), and follows again once the link is back`, async () => {
    const user = await operator();
    await cached(user);
    proxy.cut('reset');
    await until(() => !b.auth.following(), 5000, 'B notices the lost subscription');
    await get(b, user.token).expect(200);
    await api(a.app, { token: user.token }).post('/api/auth/revoke').expect(200);
    await answers(() => get(b, user.token), 401);
    await proxy.restore();
    await until(() => b.auth.following(), 15_000, 'B subscribed again');
    const other = await operator();
    await cached(other);
    await api(a.app, { token: other.token }).post('/api/auth/revoke').expect(200);
    await answers(() => get(b, other.token), 401);
  });

  it(`When B's link to Redis is black-holed (the socket stays open, nothing arrives), Then B stops following within ${ECHO_LOST_AFTER_MS} ms and more, and follows again once the link is back`, async () => {
    const accepted = proxy.accepted;
    proxy.cut('blackhole');
    const took = await until(() => !b.auth.following(), ECHO_LOST_AFTER_MS + 3000, 'B notices the deaf subscription');
    console.log(`      [${testEnv.engine}] black hole noticed after ${took} ms`);
    await until(() => proxy.accepted > accepted, 5000, 'B opens a new subscription connection');
    await proxy.restore();
    await until(() => b.auth.following(), 15_000, 'B subscribed again');
  });
});
