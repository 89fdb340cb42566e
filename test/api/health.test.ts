import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { buildApp, harness, testConfig, TEST_APP_URL, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { closedPort, redisAnswers, until } from '../helpers/net.js';
import { testEnv } from '../helpers/test-env.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { createDb } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../db/migrations/index.js';
import { connectRedis, type RedisConnection } from '../../src/platform/redis.js';
import { startScheduler } from '../../src/scheduler.js';
import { nowDb } from '../../src/kernel/time.js';
import { CHECK_TIMEOUT_MS } from '../../src/components/health/health.service.js';
import { API_TIME } from '../fixtures/probes.js';

interface Family { name: string; help: string; type: string; metrics: Array<{ labels?: Record<string, string>; value?: string }> }
const parsePrometheus = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];

const silent = pino({ level: 'silent' });
const MODULES = [
  { slug: 'api', name: 'API' }, { slug: 'articles', name: 'Articles' }, { slug: 'stock', name: 'Stock' },
  { slug: 'inbound', name: 'Inbound' }, { slug: 'outbound', name: 'Outbound' }, { slug: 'returns', name: 'Returns' },
  { slug: 'webhooks', name: 'Webhooks' },
];
const CHECKS = ['database', 'cache', 'queue', 'redis', 'storage', 'storage_public', 'heartbeat'];
const PLACEHOLDER = { name: 'cron', last_ping_at: null, last_ping_at_ms: null, ok: false };




describe('GET /api/health', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  describe('GET /health and GET /up', () => {
    it('When /api/health, /health and /up are read, Then each answers 200 with the same health object', async () => {
      const started = Date.now();
      const bodies = [];
      for (const url of ['/api/health', '/health', '/up', '/api/health?format=json']) {
        const res = await api(h.app).get(url).expect(200).expect('Content-Type', /^application\/json/);
        bodies.push(res.body);
      }
      const [first] = bodies;
      expect(first.app).to.deep.equal({ name: '3PL Integration API', env: 'test' });
      expect(first.urls).to.deep.equal({ app: TEST_APP_URL, api: `${TEST_APP_URL}/api` });
      expect(first.integrations).to.deep.equal({ anaf: false, etsm: true, mdm: true });
      expect(first.modules).to.deep.equal(MODULES);
      expect(Object.keys(first.checks).sort()).to.deep.equal([...CHECKS].sort());
      expect(first.checks).to.include({ database: true, queue: true, cache: false, redis: false, storage: true, storage_public: true });
      expect(first.status).to.equal(first.checks.heartbeat ? 'ok' : 'degraded');
      expect(first.timestamp).to.match(API_TIME);
      expect(Date.parse(first.timestamp)).to.be.within(started - 1000, Date.now() + 1000);
      for (const body of bodies) expect({ ...body, timestamp: 'x' }).to.deep.equal({ ...first, timestamp: 'x' });
    });
  });

  it('When health is read, Then none of its check timeouts is left running after the answer', async () => {
    const started: unknown[] = [];
    const cleared = new Set<unknown>();
    const { setTimeout: set, clearTimeout: clear } = globalThis;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      const timer = set(fn, ms);
      if (ms === CHECK_TIMEOUT_MS) started.push(timer);
      return timer;
    }) as typeof globalThis.setTimeout;
    globalThis.clearTimeout = ((timer: Parameters<typeof clear>[0]) => {
      cleared.add(timer);
      clear(timer);
    }) as typeof globalThis.clearTimeout;
    try {
      await api(h.app).get('/up').expect(200);
    } finally {
      globalThis.setTimeout = set;
      globalThis.clearTimeout = clear;
    }
    expect(started.length).to.be.greaterThan(0);
    expect(started.filter((timer) => !cleared.has(timer))).to.have.length(0);
  });

  it('When the configuration changes the integrations and APP_URL, Then urls and integrations follow it', async () => {
    const config = testConfig({ APP_URL: 'https://wms.example.com/', ANAF_ENABLED: 'true', ETSM_TOKEN: '', MDM_TOKEN: '' });
    const own = await buildApp({ config });
    const res = await api(own.app).get('/health').expect(200);
    expect(res.body.urls).to.deep.equal({ app: 'https://wms.example.com', api: 'https://wms.example.com/api' });
    expect(res.body.integrations).to.deep.equal({ anaf: true, etsm: false, mdm: false });
  });

  it('When the format is not json or prometheus, Then it answers 422 on format', async () => {
    const res = await api(h.app).get('/api/health?format=xml').expect(422);
    expect(res.body.errors).to.have.all.keys('format');
  });

  it('When STORAGE_PATH is a file, not a folder, Then the storage checks fail and status is degraded (still 200)', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tpl-health-')), 'not-a-folder');
    writeFileSync(file, 'x');
    const own = await buildApp({ config: testConfig({ STORAGE_PATH: file }) });
    const res = await api(own.app).get('/api/health').expect(200);
    expect(res.body.checks).to.include({ database: true, storage: false, storage_public: false });
    expect(res.body.status).to.equal('degraded');
  });

  it('When many health checks run at once, Then none finds the storage unwritable (each probe file is its own)', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => api(h.app).get('/api/health').expect(200)));
    expect(results.map((res) => [res.body.checks.storage, res.body.checks.storage_public])).to.deep.equal(results.map(() => [true, true]));
  });

  it('When the Redis connection does not answer its ping, Then redis and cache are false and status degraded (200)', async () => {
    const redis: RedisConnection = { sendCommand: () => Promise.reject(new Error('The client is closed')), ping: async () => false, close: async () => undefined };
    const res = await api((await buildApp({ deps: { redis } })).app).get('/api/health').expect(200);
    expect(res.body.checks).to.include({ database: true, redis: false, cache: false, storage: true });
    expect(res.body.status).to.equal('degraded');
  });
});

describe('GET /api/health with Redis configured', () => {
  let connection: RedisConnection | undefined;

  after(async () => {
    await connection?.close();
  });

  it('When REDIS_URL is set and Redis answers, Then redis and cache are true', async function () {
    if (!(await redisAnswers(testEnv.redisUrl))) {
      if (testEnv.ci) throw new Error(`Redis is not reachable at ${testEnv.redisUrl} (required under CI=true)`);
      this.skip();
    }
    connection = await connectRedis(testEnv.redisUrl, silent);
    // connectRedis waits for Redis at most 2 s; on a busy machine the connection may come up later.
    await until(() => connection!.ping(), 10_000, 'the Redis connection answers PING');
    const own = await buildApp({ config: testConfig({ REDIS_URL: testEnv.redisUrl }), deps: { redis: connection } });
    // Building the app compiles the document's validators, which may hold the event loop past a
    // Redis command's 500 ms: the connection is then replaced, and answers again once reconnected.
    await until(() => connection!.ping(), 10_000, 'the Redis connection answers PING after the app is built');
    const res = await api(own.app).get('/health').expect(200);
    expect(res.body.checks).to.include({ database: true, redis: true, cache: true });
  });
});

describe('GET /api/health with Redis configured but down', () => {
  let pending: Promise<RedisConnection> | undefined;

  after(async () => {
    await (await pending)?.close();
  });

  it('When REDIS_URL points at a port where no Redis listens, Then health answers 200 with redis and cache false, status degraded', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    pending = connectRedis(url, silent);
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`connectRedis(${url}) did not resolve within 5 s: with Redis down the app cannot even be built`)), 5000).unref(),
    );
    const redis = await Promise.race([pending, timeout]);
    const own = await buildApp({ config: testConfig({ REDIS_URL: url }), deps: { redis } });
    const res = await api(own.app).get('/api/health').timeout(5000).expect(200);
    expect(res.body.checks).to.include({ database: true, redis: false, cache: false });
    expect(res.body.status).to.equal('degraded');
  });
});

describe('GET /api/health?format=prometheus', () => {
  let h: Harness;
  let text: string;

  before(async () => {
    h = await harness();
    const res = await api(h.app).get('/api/health?format=prometheus').expect(200);
    expect(res.headers['content-type']).to.match(/^text\/plain;\s*version=0\.0\.4(;|$)/);
    text = res.text;
  });

  it('When it is read, Then it answers text/plain version 0.0.4 with tpl_up and one tpl_health_check per check', async () => {
    const res = await api(h.app).get('/health?format=prometheus').expect(200);
    expect(res.headers['content-type']).to.match(/^text\/plain;\s*version=0\.0\.4(;|$)/);
    const lines = text.split('\n');
    expect(lines).to.include('tpl_up 1');
    expect(lines).to.include('tpl_health_check{check="database"} 1');
    const families = parsePrometheus(text);
    const check = families.find((f) => f.name === 'tpl_health_check');
    expect(check?.type).to.equal('GAUGE');
    expect(check?.metrics.map((m) => m.labels?.check).sort()).to.deep.equal([...CHECKS].sort());
    expect(families.find((f) => f.name === 'tpl_up')?.metrics).to.deep.equal([{ value: '1' }]);
  });

  it('When every line is checked against the text exposition grammar, Then each sample parses and each family has HELP and TYPE', () => {
    const name = '[a-zA-Z_:][a-zA-Z0-9_:]*';
    const label = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
    const float = '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?Inf|NaN';
    const sample = new RegExp(`^(${name})(?:\\{(?:${label}(?:,${label})*,?)?\\})? (?:${float})(?: -?\\d+)?$`);
    const help = new Map<string, number>();
    const type = new Map<string, string>();
    const sampled = new Set<string>();
    for (const line of text.split('\n').filter((l) => l !== '')) {
      const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (comment) {
        if (comment[1] === 'HELP') help.set(comment[2]!, (help.get(comment[2]!) ?? 0) + 1);
        else {
          expect(comment[3], line).to.be.oneOf(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
          expect(type.has(comment[2]!), `duplicate TYPE: ${line}`).to.equal(false);
          type.set(comment[2]!, comment[3]!);
        }
        continue;
      }
      expect(line, 'a sample line').to.match(sample);
      const metric = sample.exec(line)![1]!;
      const base = metric.replace(/_(bucket|sum|count)$/, '');
      const family = type.has(metric) ? metric : base;
      expect(type.has(family), `no TYPE line before ${line}`).to.equal(true);
      sampled.add(family);
    }
    expect([...sampled]).to.include.members(['tpl_up', 'tpl_health_check']);
    for (const family of sampled) expect(help.get(family), `HELP of ${family}`).to.equal(1);
  });

  it('When the families are linted as promtool check metrics does, Then no family breaks its naming rules', () => {
    const problems: string[] = [];
    for (const family of parsePrometheus(text)) {
      const total = family.name.endsWith('_total');
      if (family.type === 'COUNTER' && !total) problems.push(`${family.name} counter metrics should have "_total" suffix`);
      if (family.type !== 'COUNTER' && family.type !== 'UNTYPED' && total) problems.push(`${family.name} non-counter metrics should not have "_total" suffix`);
      if (!family.help) problems.push(`${family.name} no help text`);
      if (/[a-z][A-Z]/.test(family.name)) problems.push(`${family.name} metric names should be written in 'snake_case' not 'camelCase'`);
    }
    expect(problems).to.deep.equal([]);
  });
});

describe('GET /api/health heartbeats', () => {
  let fresh: TestDatabase;
  let h: Harness;

  async function setHeartbeat(name: string, minutesAgo: number): Promise<void> {
    await fresh.db('heartbeats').where({ name }).delete();
    await fresh.db('heartbeats').insert({ name, last_ping_at: nowDb(() => Date.now() - minutesAgo * 60_000) });
  }

  before(async () => {
    fresh = await createScratchDatabase();
    await migrateLatest(fresh.db);
    h = await buildApp({ deps: { db: fresh.db } });
  });

  after(async () => {
    await fresh?.close();
  });

  beforeEach(async () => {
    await fresh.db('heartbeats').delete();
  });

  it('When the heartbeats table is empty, Then no_records is true with one cron placeholder, the heartbeat check fails and status is degraded', async () => {
    const res = await api(h.app).get('/api/health').expect(200);
    expect(res.body.heartbeats).to.deep.equal({ stale_after_minutes: 5, no_records: true, items: [PLACEHOLDER] });
    expect(res.body.checks).to.deep.equal({ database: true, cache: false, queue: true, redis: false, storage: true, storage_public: true, heartbeat: false });
    expect(res.body.status).to.equal('degraded');
  });

  it('When the scheduler has run one tick, Then the cron heartbeat is ok with last_ping_at and last_ping_at_ms agreeing, and status is ok', async () => {
    const started = Date.now();
    const scheduler = startScheduler(fresh.db, silent, [], 3_600_000);
    await scheduler.tick();
    await scheduler.stop();
    const ended = Date.now();
    const res = await api(h.app).get('/api/health').expect(200);
    expect(res.body.heartbeats.no_records).to.equal(false);
    expect(res.body.heartbeats.items).to.have.length(1);
    const [cron] = res.body.heartbeats.items;
    expect(cron).to.include({ name: 'cron', ok: true });
    expect(cron.last_ping_at).to.match(API_TIME);
    expect(cron.last_ping_at_ms).to.be.within(started - 1000, ended + 1000); // nowDb reads the monotonic clock
    expect(new Date(cron.last_ping_at_ms).toISOString().slice(0, 23)).to.equal(cron.last_ping_at.slice(0, 23));
    expect(res.body.checks.heartbeat).to.equal(true);
    // No Redis is configured: redis and cache are false, and that does not make the status degraded.
    expect(res.body.checks).to.include({ redis: false, cache: false });
    expect(res.body.status).to.equal('ok');
    const metrics = (await api(h.app).get('/up?format=prometheus').expect(200)).text;
    expect(metrics).to.match(/^tpl_heartbeat_age_seconds\{name="cron"\} (\d+(\.\d+)?(e-\d+)?)$/m);
    expect(metrics.split('\n')).to.include('tpl_health_check{check="heartbeat"} 1');
  });

  it('When a heartbeat is older than HEARTBEAT_STALE_MINUTES, Then it is ok:false, the heartbeat check fails and status is degraded', async () => {
    await setHeartbeat('cron', 6);
    const res = await api(h.app).get('/api/health').expect(200);
    const [cron] = res.body.heartbeats.items;
    expect(cron).to.include({ name: 'cron', ok: false });
    expect(Date.now() - cron.last_ping_at_ms).to.be.within(6 * 60_000, 6 * 60_000 + 5000);
    expect(res.body.heartbeats.no_records).to.equal(false);
    expect(res.body.checks.heartbeat).to.equal(false);
    expect(res.body.status).to.equal('degraded');
  });

  it('When one of two heartbeats is stale, Then only it is ok:false and the heartbeat check fails', async () => {
    await setHeartbeat('cron', 4);
    await setHeartbeat('worker', 7);
    const res = await api(h.app).get('/api/health').expect(200);
    expect(res.body.heartbeats.items.map((i: { name: string; ok: boolean }) => [i.name, i.ok])).to.deep.equal([['cron', true], ['worker', false]]);
    expect(res.body.checks.heartbeat).to.equal(false);
  });

  it('When HEARTBEAT_STALE_MINUTES is 10, Then a heartbeat of 6 minutes ago is still ok', async () => {
    await setHeartbeat('cron', 6);
    const own = await buildApp({ config: testConfig({ HEARTBEAT_STALE_MINUTES: '10' }), deps: { db: fresh.db } });
    const res = await api(own.app).get('/api/health').expect(200);
    expect(res.body.heartbeats.stale_after_minutes).to.equal(10);
    expect(res.body.heartbeats.items[0]).to.include({ name: 'cron', ok: true });
    expect(res.body.status).to.equal('ok');
  });
});

describe('GET /api/health with the database down', () => {
  let dead: Knex;
  let h: Harness;

  before(async () => {
    dead = createDb('mysql://root@127.0.0.1:1/none');
    (dead.client as { logger: { warn: (message: string) => void } }).logger.warn = () => undefined; // each refused connection
    h = await buildApp({ deps: { db: dead } });
  });

  after(async () => {
    await dead?.destroy();
  });

  it('When the database does not answer, Then every health path answers 503 with the same body, status down and checks.database false, within seconds', async () => {
    const bodies = [];
    for (const url of ['/api/health', '/health', '/up']) {
      const started = Date.now();
      bodies.push({ ...(await api(h.app).get(url).timeout(8000).expect(503)).body, timestamp: 'x' });
      expect(Date.now() - started, `${url} answered in`).to.be.below(4000);
    }
    expect(bodies[0].status).to.equal('down');
    expect(bodies[0].checks).to.include({ database: false, queue: false, storage: true, redis: false, cache: false });
    expect(bodies[0].urls).to.deep.equal({ app: TEST_APP_URL, api: `${TEST_APP_URL}/api` });
    expect(bodies[0].heartbeats.items).to.deep.equal([PLACEHOLDER]);
    expect(bodies[1]).to.deep.equal(bodies[0]);
    expect(bodies[2]).to.deep.equal(bodies[0]);
  });

  it('When the database does not answer, Then the Prometheus exposition answers 503 with tpl_up 0 and the database check 0', async () => {
    const res = await api(h.app).get('/api/health?format=prometheus').timeout(8000).expect(503);
    expect(res.headers['content-type']).to.match(/^text\/plain;\s*version=0\.0\.4(;|$)/);
    const lines = res.text.split('\n');
    expect(lines).to.include('tpl_up 0');
    expect(lines).to.include('tpl_health_check{check="database"} 0');
  });
});
