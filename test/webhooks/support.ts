/**
 * Shared set-up of the webhook worker suites. Each suite runs its app on a database of its own
 * (a migrated scratch database on MariaDB, SQLite in memory or in a temporary file), because the
 * worker takes every due delivery of its database: deliveries other suites leave behind in the
 * run's database would otherwise take its claims and move its clock for them.
 */
import type { Knex } from 'knex';
import { pino } from 'pino';
import { createWebhookWorker, type WebhookWorker, type WorkerOptions } from '../../src/components/webhooks/webhooks.worker.js';
import { epochMs } from '../../src/kernel/time.js';
import { unique, type World } from '../helpers/factories.js';
import { outboxEventIds } from '../fixtures/probes.js';
import { isolatedHarness, type Isolated } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

export const silent = pino({ level: 'silent' });

/** An app (allowing http and private targets, as the harness does) on a migrated database of its own. */
export { isolatedHarness as isolatedApp, type Isolated } from '../helpers/harness.js';

/**
 * The hooks of a suite whose tests each run the worker on the suite's isolated app: after each test
 * every subscription is switched off (a test's leftover retrying delivery must never be sent during
 * a later one, whose receiver the OS may give a port an earlier test freed), and after the suite its
 * receivers and its app are closed. `app` is there once the suite's `before` has run.
 */
export function workerSuite(): { readonly app: Isolated; receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> } {
  let app: Isolated | undefined;
  const receivers: Receiver[] = [];
  before(async () => {
    app = await isolatedHarness();
  });
  afterEach(async () => {
    await app!.db('webhooks').where('active', true).update({ active: false });
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await app?.close();
  });
  return {
    get app() {
      if (!app) throw new Error('workerSuite: the app is made in the suite\'s before hook');
      return app;
    },
    async receiver(...args) {
      const started = await startReceiver(...args);
      receivers.push(started);
      return started;
    },
  };
}

/** A clock the test moves: epoch milliseconds. */
export interface Clock {
  (): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start = Date.now()): Clock {
  let now = start;
  const clock = (() => now) as Clock;
  clock.set = (ms) => void (now = ms);
  clock.advance = (ms) => void (now += ms);
  return clock;
}

/** A worker with the test's clock and no jitter (random 0.5 is a factor of exactly 1). */
export function testWorker(db: Knex, clock: Clock, overrides: Partial<WorkerOptions> = {}): WebhookWorker {
  return createWebhookWorker({ db, logger: silent, timeoutMs: 2000, allowPrivateTargets: true, allowHttp: true, pollMs: 50, clock, random: () => 0.5, ...overrides });
}

/** A subscription of the world's client, created through the API by its admin: its id and secret. */
export async function subscribe(world: World, url: string, events: string[] = ['*']): Promise<{ id: number; secret: string }> {
  const res = await world.as('admin').post('/api/webhooks').send({ url, events }).expect(201);
  return { id: res.body.data.id as number, secret: res.body.data.secret as string };
}

export interface ArticleBody {
  id: number;
  article_code: string;
  [key: string]: unknown;
}

/** Creates an article of the world's client through the API (201 expected). */
export async function createArticle(world: World, code = unique('WH-')): Promise<ArticleBody> {
  const res = await world.as('admin').post('/api/articles').send({ article_code: code, description: `Webhook test ${code}`, um3pl: 'BUC' }).expect(201);
  return res.body.data as ArticleBody;
}

export interface Delivery {
  id: number;
  event_id: string;
  event_type: string;
  status: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

/** The delivery log of a subscription as the API shows it, oldest first. */
export async function deliveries(world: World, webhookId: number): Promise<Delivery[]> {
  const res = await world.as('admin').get(`/api/webhooks/${webhookId}/deliveries?per_page=100`).expect(200);
  return (res.body.data as Delivery[]).reverse();
}

/** The only delivery of a subscription. */
export async function onlyDelivery(world: World, webhookId: number): Promise<Delivery> {
  const rows = await deliveries(world, webhookId);
  if (rows.length !== 1) throw new Error(`Expected one delivery of webhook ${webhookId}, found ${rows.length}`);
  return rows[0]!;
}

/** The subscription as GET /api/webhooks/{id} shows it. */
export async function readWebhook(world: World, webhookId: number): Promise<{ active: boolean; disabled_reason: string | null }> {
  return (await world.as('admin').get(`/api/webhooks/${webhookId}`).expect(200)).body.data;
}

/** An API time (2026-11-21T10:00:00.000000Z) in epoch milliseconds. */
export function apiMs(value: string): number {
  return Date.parse(value);
}

export { epochMs };

/** The event ids the outbox recorded for a company, oldest first. */
export async function outboxIds(db: Knex, companyId: number): Promise<string[]> {
  return outboxEventIds(db, { companyId });
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
