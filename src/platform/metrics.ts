/**
 * Prometheus metrics of one process, served by GET /metrics (and beside the health checks by
 * `/api/health?format=prometheus`). A scrape reads memory only: counters are counted as things
 * happen; gauges of the database (backlogs) are sampled in the background by the instance
 * (src/components/webhooks/webhooks.backlog.ts) and served as last sampled, with the sample's age;
 * the pool's use is read from the pool object itself (pool-metrics.ts).
 */
import type { Request, RequestHandler, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What a webhook delivery attempt came to. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'gone' | 'refused' | 'withheld';
export type IdempotencyOutcome = 'replayed' | 'conflict' | 'mismatch';

/** The database's backlogs as one background sample read them. */
export interface BacklogSample {
  /** Deliveries waiting by status (pending, retrying), and the age in seconds of the oldest. */
  readonly deliveries: { readonly pending: number; readonly retrying: number; readonly oldestAgeSeconds: number };
  /** Events not fanned out yet, the age of the oldest, and events set aside (poison). */
  readonly outbox: { readonly waiting: number; readonly oldestAgeSeconds: number; readonly setAside: number };
}

export interface Metrics {
  readonly registry: Registry;
  readonly requestMetrics: RequestHandler;
  webhookDelivery(outcome: DeliveryOutcome): void;
  idempotency(outcome: IdempotencyOutcome): void;
  /** Counts one GraphQL operation under a bounded name (graphql-operation-names.ts). */
  graphqlOperation(name: string): void;
  /** Counts an answer node:http's parser or timeouts gave before any request existed (client-errors.ts). */
  clientError(status: number): void;
  /** A background sample of the backlogs; `undefined` when the database did not answer it. */
  backlogSampled(sample: BacklogSample | undefined, at?: number): void;
}

function processMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: 'tpl_' });
  // Gauges named *_total break Prometheus' naming rules (promtool check metrics); each is the
  // sum of a labelled gauge that stays (tpl_nodejs_active_handles, ...).
  for (const name of ['tpl_nodejs_active_handles_total', 'tpl_nodejs_active_requests_total', 'tpl_nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
}

/**
 * The status a request is counted under: its answer's, or the one node:http answered it with
 * (client-errors.ts: 408 when the request timeout cut it, 400 or 413 for a malformed body), or 499
 * (nginx's "client closed request") when the client went away before the answer was written, so
 * that the slowest requests stay in the histogram.
 */
function countedStatus(req: Request, res: Response): string {
  if (res.writableFinished) return String(res.statusCode);
  return String(req.clientErrorStatus ?? 499);
}

function requestDuration(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: 'tpl_http_request_duration_seconds',
    help: 'Duration of HTTP requests by operation and status (408: cut by the request timeout; 499: the client went away before the answer).',
    labelNames: ['operation', 'method', 'status'] as const,
    // Up to the service's own bounds: the 10 s statement timeout, the lock waits, the 30 s request timeout.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      duration.observe({ operation: req.operation?.operationId ?? 'unmatched', method: req.method, status: countedStatus(req, res) }, Number(process.hrtime.bigint() - start) / 1e9);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** The backlog gauges: set by each sample, and the sample's age worked out at each scrape. */
function backlogGauges(registry: Registry): Metrics['backlogSampled'] {
  const registers = [registry];
  const deliveries = new Gauge({ name: 'tpl_webhook_deliveries_backlog', help: 'Webhook deliveries waiting to be sent, by status (as last sampled); those held while their subscription is off are not counted.', labelNames: ['status'], registers });
  const oldestDelivery = new Gauge({ name: 'tpl_webhook_deliveries_oldest_age_seconds', help: 'Age of the oldest pending or retrying webhook delivery, held ones left out; 0 when none waits (as last sampled).', registers });
  const outbox = new Gauge({ name: 'tpl_outbox_backlog', help: 'Events recorded and not fanned out to webhook deliveries yet (as last sampled).', registers });
  const oldestEvent = new Gauge({ name: 'tpl_outbox_oldest_age_seconds', help: 'Age of the oldest event not fanned out yet; 0 when none waits (as last sampled).', registers });
  const setAside = new Gauge({ name: 'tpl_outbox_set_aside_events', help: 'Events set aside because their fan-out kept failing (as last sampled; the CLI lists them).', registers });
  const databaseUp = new Gauge({ name: 'tpl_database_up', help: 'Whether the database answered the last background sample (1) or not (0).', registers });
  let sampledAt: number | undefined;
  new Gauge({
    name: 'tpl_metrics_sample_age_seconds',
    help: 'Seconds since the database gauges were last sampled (-1 before the first sample).',
    registers,
    collect() {
      this.set(sampledAt === undefined ? -1 : Math.max(0, (Date.now() - sampledAt) / 1000));
    },
  });
  return (sample, at = Date.now()) => {
    sampledAt = at;
    databaseUp.set(sample ? 1 : 0);
    if (!sample) return;
    deliveries.set({ status: 'pending' }, sample.deliveries.pending);
    deliveries.set({ status: 'retrying' }, sample.deliveries.retrying);
    oldestDelivery.set(sample.deliveries.oldestAgeSeconds);
    outbox.set(sample.outbox.waiting);
    oldestEvent.set(sample.outbox.oldestAgeSeconds);
    setAside.set(sample.outbox.setAside);
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  processMetrics(registry);
  const registers = [registry];
  const deliveries = new Counter({ name: 'tpl_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome: delivered, retrying (to be tried again), failed (no retry left), gone (410, subscription off), refused (target not allowed), withheld (not sent: a module switched off since it was queued).', labelNames: ['outcome'], registers });
  const idempotency = new Counter({ name: 'tpl_idempotency_requests_total', help: 'Requests with an Idempotency-Key answered without running: replayed (the stored answer), conflict (409, the first still running), mismatch (422, another body).', labelNames: ['outcome'], registers });
  const graphql = new Counter({ name: 'tpl_graphql_operations_total', help: 'GraphQL operations by operation name (anonymous, or other once too many names were seen).', labelNames: ['operation'], registers });
  const clientErrors = new Counter({ name: 'tpl_http_client_errors_total', help: 'Connections answered before a request existed, by status: 400 (not HTTP), 413 (chunk extensions too large), 431 (headers too large), 408 (headers not received in time).', labelNames: ['status'], registers });
  return {
    registry,
    requestMetrics: requestDuration(registry),
    webhookDelivery: (outcome) => deliveries.inc({ outcome }),
    idempotency: (outcome) => idempotency.inc({ outcome }),
    graphqlOperation: (name) => graphql.inc({ operation: name }),
    clientError: (status) => clientErrors.inc({ status: String(status) }),
    backlogSampled: backlogGauges(registry),
  };
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
