/**
 * The webhook backlogs as /metrics shows them, sampled in the background by each instance (every
 * BACKLOG_SAMPLE_MS), so a scrape reads memory and never the database: deliveries pending or
 * retrying and the age of the oldest, events not fanned out yet and the age of the oldest, and
 * events set aside. A sample the database does not answer marks `tpl_database_up` 0; the gauges
 * keep their last values and `tpl_metrics_sample_age_seconds` says how old they are.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { epochMs } from '../../kernel/time.js';
import type { BacklogSample, Metrics } from '../../platform/metrics.js';
import { WAITING_STATUSES } from './webhooks.repository.js';

export const BACKLOG_SAMPLE_MS = 15_000;

type Time = string | Date | null;

function ageSeconds(oldest: Time, now: number): number {
  if (oldest === null) return 0;
  const at = oldest instanceof Date ? oldest.getTime() : epochMs(oldest);
  return Math.max(0, (now - at) / 1000);
}

/** Three small queries on indexed columns ((status, next_attempt_at); dispatched_at; fan_out_failed_at). */
export async function readBacklog(db: Knex, now = Date.now()): Promise<BacklogSample> {
  const deliveries = (await db('webhook_deliveries')
    .select('status')
    .count({ n: '*' })
    .min({ oldest: 'created_at' })
    .whereIn('status', WAITING_STATUSES)
    // Held deliveries (their subscription is off) are not waiting to be sent: an alert on the age
    // must not fire for a subscription a client switched off.
    .whereNotNull('next_attempt_at')
    .groupBy('status')) as Array<{ status: string; n: number | string; oldest: Time }>;
  const [waiting] = (await db('outbox_events').count({ n: '*' }).min({ oldest: 'occurred_at' }).whereNull('dispatched_at').whereNull('fan_out_failed_at')) as Array<{
    n: number | string;
    oldest: Time;
  }>;
  const [setAside] = (await db('outbox_events').count({ n: '*' }).whereNotNull('fan_out_failed_at')) as Array<{ n: number | string }>;
  const count = (status: string) => Number(deliveries.find((d) => d.status === status)?.n ?? 0);
  const oldestDelivery = Math.max(0, ...deliveries.map((d) => ageSeconds(d.oldest, now)));
  return {
    deliveries: { pending: count('pending'), retrying: count('retrying'), oldestAgeSeconds: oldestDelivery },
    outbox: { waiting: Number(waiting?.n ?? 0), oldestAgeSeconds: ageSeconds(waiting?.oldest ?? null, now), setAside: Number(setAside?.n ?? 0) },
  };
}

export interface BacklogSampler {
  /** Takes one sample now (the timer takes one every interval). */
  sample(): Promise<void>;
  stop(): void;
}

export function startBacklogSampler(db: Knex, metrics: Pick<Metrics, 'backlogSampled'>, logger: Logger, intervalMs = BACKLOG_SAMPLE_MS): BacklogSampler {
  let running: Promise<void> | undefined;
  let failing = false;
  const sample = (): Promise<void> =>
    (running ??= readBacklog(db)
      .then((backlog) => {
        metrics.backlogSampled(backlog);
        if (failing) logger.info('metrics: the database answers the backlog sample again');
        failing = false;
      })
      .catch((err: unknown) => {
        metrics.backlogSampled(undefined);
        if (!failing) logger.warn({ err }, 'metrics: the database did not answer the backlog sample; tpl_database_up is 0 until it does');
        failing = true;
      })
      .finally(() => {
        running = undefined;
      }));
  void sample();
  const timer = setInterval(() => void sample(), intervalMs);
  timer.unref();
  return { sample, stop: () => clearInterval(timer) };
}
