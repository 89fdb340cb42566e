/**
 * GET /metrics (src/platform/metrics.ts): Prometheus text exposition that `promtool check metrics`
 * accepts, 200 whatever the database does, read from memory only (no query during a scrape), with
 * the webhook, outbox, pool, idempotency and GraphQL metrics an SRE asks for.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { buildApp, isolatedHarness, type Isolated } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { drain } from '../helpers/webhooks.js';
import { createDb } from '../../src/platform/db/database.js';
import { requestHash } from '../../src/platform/idempotency/idempotency.js';
import { nowDb } from '../../src/kernel/time.js';
import { startBacklogSampler } from '../../src/components/webhooks/webhooks.backlog.js';
import { createWebhookWorker } from '../../src/components/webhooks/webhooks.worker.js';
import { silent } from '../webhooks/support.js';

/** The value of one sample line (`name{labels} value`), or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(app: Isolated['app']): Promise<string> {
  const res = await api(app).get('/metrics').expect(200);
  expect(res.headers['content-type']).to.match(/^text\/plain;\s*version=0\.0\.4(;|$)/);
  return res.text;
}

/**
 * Records in `writes` every call that writes or opens a file for writing through node:fs (the
 * functions, their promise forms and write streams) until the answer is called, which restores them.
 */
function watchFileWrites(writes: string[]): () => void {
  const watched = ['writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'open', 'openSync', 'mkdir', 'mkdirSync', 'rename', 'renameSync'] as const;
  const promised = ['writeFile', 'appendFile', 'open', 'mkdir', 'rename'] as const;
  const fsAny = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const promisesAny = fs.promises as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  const isWrite = (name: string, args: unknown[]) => !name.startsWith('open') || /[wa+]/.test(String(args[1] ?? 'r'));
  for (const name of watched) {
    const original = fsAny[name]!;
    originals.set(name, original);
    fsAny[name] = (...args: unknown[]) => (isWrite(name, args) && writes.push(`${name} ${String(args[0])}`), original.apply(fs, args));
  }
  for (const name of promised) {
    const original = promisesAny[name]!;
    originals.set(`promises.${name}`, original);
    promisesAny[name] = (...args: unknown[]) => (isWrite(name, args) && writes.push(`promises.${name} ${String(args[0])}`), original.apply(fs.promises, args));
  }
  syncBuiltinESMExports();
  return () => {
    for (const name of watched) fsAny[name] = originals.get(name)!;
    for (const name of promised) promisesAny[name] = originals.get(`promises.${name}`)!;
    syncBuiltinESMExports();
  };
}

/** Counts the statements `db` runs while `work` runs. */
async function queriesDuring(db: Knex, work: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const listener = (): void => void count++;
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.off('query', listener);
  }
  return count;
}

describe('GET /metrics', () => {
  let h: Isolated;
  let world: World;
  let receiver: Receiver;

  before(async () => {
    h = await isolatedHarness();
    world = await createWorld(h.app, h.db);
    receiver = await startReceiver();
  });

  after(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('When webhooks, idempotent creates and GraphQL have run and the backlog is sampled, Then promtool check metrics accepts the exposition and each count is there', async () => {
    await world.as('admin').post('/api/webhooks').send({ url: receiver.url, events: ['article.created'] }).expect(201);
    const key = unique('idem-');
    const body = { article_code: unique('MET-'), description: 'Metrics', um3pl: 'BUC' };
    await world.as('operator').post('/api/articles').set('Idempotency-Key', key).send(body).expect(201);
    await world.as('operator').post('/api/articles').set('Idempotency-Key', key).send(body).expect(201).expect('Idempotent-Replayed', 'true');
    await world.as('operator').post('/api/articles').set('Idempotency-Key', key).send({ ...body, description: 'Other' }).expect(422);
    // A key whose first request is still being processed: the second answers 409 (a conflict).
    const running = { article_code: unique('MET-'), description: 'Still running', um3pl: 'BUC' };
    const runningKey = unique('idem-');
    await h.db('idempotency_keys').insert({
      company_id: world.client.id,
      idempotency_key: runningKey,
      request_hash: requestHash('createArticle', '/api/articles', running),
      state: 'processing',
      created_at: nowDb(),
      expires_at: nowDb(() => Date.now() + 86_400_000),
    });
    await world.as('operator').post('/api/articles').set('Idempotency-Key', runningKey).send(running).expect(409);

    const sampler = startBacklogSampler(h.db, h.deps.metrics, silent, 3_600_000);
    await sampler.sample();
    const before = await scrape(h.app);
    expect(sample(before, 'tpl_outbox_backlog'), 'the event waits for its fan-out').to.equal(1);
    expect(sample(before, 'tpl_database_up')).to.equal(1);
    expect(sample(before, 'tpl_metrics_sample_age_seconds')).to.be.within(0, 5);

    const worker = createWebhookWorker({ db: h.db, logger: silent, timeoutMs: 2000, allowPrivateTargets: true, allowHttp: true, pollMs: 50, metrics: h.deps.metrics });
    await drain(worker);
    await sampler.sample();
    sampler.stop();
    for (const query of ['query StockCheck { articles(limit: 1) { id } }', '{ articles(limit: 1) { id } }']) {
      await world.as('viewer').post('/graphql').send({ query }).expect(200);
    }

    const text = await scrape(h.app);
    const lint = await promtoolCheckMetrics(text);
    expect(lint, 'promtool check metrics').to.deep.equal({ code: 0, output: '' });
    expect(sample(text, 'tpl_webhook_deliveries_total{outcome="delivered"}')).to.equal(1);
    expect(sample(text, 'tpl_outbox_backlog')).to.equal(0);
    expect(sample(text, 'tpl_webhook_deliveries_backlog{status="pending"}')).to.equal(0);
    expect(sample(text, 'tpl_webhook_deliveries_oldest_age_seconds')).to.equal(0);
    expect(sample(text, 'tpl_idempotency_requests_total{outcome="replayed"}')).to.equal(1);
    expect(sample(text, 'tpl_idempotency_requests_total{outcome="mismatch"}')).to.equal(1);
    expect(sample(text, 'tpl_idempotency_requests_total{outcome="conflict"}')).to.equal(1);
    expect(sample(text, 'tpl_graphql_operations_total{operation="StockCheck"}')).to.equal(1);
    expect(sample(text, 'tpl_graphql_operations_total{operation="anonymous"}')).to.equal(1);
    expect(sample(text, 'tpl_db_pool_connections{state="max"}')).to.be.at.least(1);
    expect(sample(text, 'tpl_db_pool_pending_acquires')).to.equal(0);
    expect(text).to.match(/^tpl_db_pool_acquire_wait_seconds_count \d+$/m);
    expect(text).to.match(/^tpl_http_request_duration_seconds_count\{operation="createArticle",method="POST",status="201"\} 2$/m);
  });

  it('When a delivery fails and waits for its retry, Then the backlog shows it as retrying with the age of the oldest, and the attempt counts as retrying', async () => {
    await world.as('admin').post('/api/articles').send({ article_code: unique('MET-'), description: 'Waits', um3pl: 'BUC' }).expect(201);
    const failing = async () => ({ status: 500 });
    const worker = createWebhookWorker({ db: h.db, logger: silent, timeoutMs: 2000, allowPrivateTargets: true, allowHttp: true, pollMs: 50, metrics: h.deps.metrics, send: failing });
    await worker.runOnce();
    const sampler = startBacklogSampler(h.db, h.deps.metrics, silent, 3_600_000);
    await sampler.sample();
    sampler.stop();
    const text = await scrape(h.app);
    expect(sample(text, 'tpl_webhook_deliveries_backlog{status="retrying"}')).to.equal(1);
    expect(sample(text, 'tpl_webhook_deliveries_oldest_age_seconds')).to.be.within(0, 60);
    expect(sample(text, 'tpl_webhook_deliveries_total{outcome="retrying"}')).to.equal(1);
    expect(sample(text, 'tpl_outbox_backlog')).to.equal(0);
  });

  it('When it is scraped, Then no database statement runs (the gauges of the database come from the background sample)', async () => {
    const count = await queriesDuring(h.db, async () => {
      for (let i = 0; i < 3; i++) await scrape(h.app);
    });
    expect(count).to.equal(0);
  });

  it('When it is scraped, Then it opens no file for writing (node:fs watched for every write, open and stream)', async () => {
    const writes: string[] = [];
    const restore = watchFileWrites(writes);
    try {
      for (let i = 0; i < 3; i++) await scrape(h.app);
    } finally {
      restore();
    }
    expect(writes).to.deep.equal([]);
  });

  it('When the database fails the sample or is gone, Then GET /metrics still answers 200 and tpl_database_up says 0', async () => {
    const broken = createDb('sqlite::memory:'); // not migrated: every sample query fails
    const own = await buildApp({ deps: { db: broken } });
    const never = await scrape(own.app);
    expect(sample(never, 'tpl_metrics_sample_age_seconds'), 'no sample yet').to.equal(-1);
    const sampler = startBacklogSampler(broken, own.deps.metrics, silent, 3_600_000);
    await sampler.sample();
    sampler.stop();
    await broken.destroy();
    const text = await scrape(own.app);
    expect(sample(text, 'tpl_database_up')).to.equal(0);
    expect(sample(text, 'tpl_metrics_sample_age_seconds')).to.be.within(0, 5);
    expect(await promtoolCheckMetrics(text)).to.deep.equal({ code: 0, output: '' });
  });

  it('When the health exposition is read, Then promtool accepts it too, and it holds the checks alone, none of the metrics of /metrics (it needs no token)', async () => {
    const res = await api(h.app).get('/api/health?format=prometheus').expect(200);
    expect(await promtoolCheckMetrics(res.text)).to.deep.equal({ code: 0, output: '' });
    expect(sample(res.text, 'tpl_up')).to.equal(1);
    const families = [...res.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    expect(families.sort()).to.deep.equal(['tpl_health_check', 'tpl_heartbeat_age_seconds', 'tpl_up']);
  });
});
