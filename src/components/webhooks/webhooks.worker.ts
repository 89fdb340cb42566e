/**
 * The webhook worker: fans outbox events out into deliveries for every active subscription that
 * wants them, then sends the due deliveries it has claimed, signed per Standard Webhooks: up to
 * PARALLEL_SENDS at once, at most SENDS_PER_SUBSCRIPTION of one subscription and SENDS_PER_COMPANY
 * of one company's subscriptions together, each slot claiming
 * again as soon as its send ends, so one slow endpoint delays neither the others nor the fan-out. 2xx
 * delivers; 410 switches the subscription off; anything else is retried on the schedule of
 * webhooks.rules.ts, and a subscription failing for three days is switched off. A claim is a lease:
 * a worker that dies mid-delivery loses nothing, its claims expire and another worker sends them.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { recordHeartbeat } from '../health/health.service.js';
import * as queue from './webhooks.queue.js';
import type { ClaimedDelivery } from './webhooks.queue.js';
import { createFanOut } from './webhooks.fan-out.js';
import { FAILING_DISABLE_AFTER_MS, nextDelayMs, outcomeOf, retryAfterMs, withheldReason, type Withheld } from './webhooks.rules.js';
import { send as sendHttp, type SendOptions, type SendResult } from './webhooks.sender.js';
import { signature } from './webhooks.signing.js';
import type { Metrics } from '../../platform/metrics.js';
import { repeatedFailureLog } from '../../platform/repeated-failure.js';
import { withheldNow } from './webhooks.modules.js';

export const WORKER_HEARTBEAT = 'webhook-worker';
export const PARALLEL_SENDS = 8;
/**
 * At most this many sends at once to one subscription: an endpoint that answers slowly (or not, up
 * to the timeout) holds half the worker's sends, and the others go on serving everyone else.
 */
export const SENDS_PER_SUBSCRIPTION = 4;
/**
 * At most this many sends at once to the subscriptions of one company together: a tenant with many
 * slow subscriptions leaves the other companies PARALLEL_SENDS - SENDS_PER_COMPANY sends at least,
 * and one slow subscription leaves its own company's others SENDS_PER_COMPANY - SENDS_PER_SUBSCRIPTION.
 */
export const SENDS_PER_COMPANY = 6;
/** A round sends at most this many, then fans out again and writes its heartbeat. */
const MAX_SENDS_PER_ROUND = 200;
/**
 * A round claims for at most this long, then fans out again: under a steady stream of sends (a
 * backlog, a slow endpoint), new events wait about this long for their deliveries, not for 200
 * sends (13 s in a soak test whose receiver took 1.5 s on every 20th call).
 */
const ROUND_MS = 1000;
/**
 * A round that waits longer than this for a send to end (every send taken by slow endpoints) ends
 * there, its sends going on: the next round fans out the new events and sends what it can. The
 * running loop's rounds end at ROUND_MS first; runOnce's are not cut by time.
 */
const SLOT_WAIT_MS = 2000;

/** Adds `by` (1 or -1) to the sends under way of `key`; a key with none is removed. */
function countSend(counts: Map<number, number>, key: number, by: 1 | -1): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export interface WorkerOptions {
  db: Knex;
  logger: Logger;
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** http URLs may be delivered to (WEBHOOK_ALLOW_HTTP); a stored http URL is refused at delivery when not. */
  allowHttp: boolean;
  pollMs: number;
  /** How long a round claims before it fans out again (ROUND_MS); tests shorten it. */
  roundMs?: number;
  /** Counts each attempt's outcome for /metrics. */
  metrics?: Pick<Metrics, 'webhookDelivery'>;
  /** Epoch milliseconds; tests move it. */
  clock?: () => number;
  /** In [0, 1): the jitter of retries. */
  random?: () => number;
  send?: (url: string, body: string, headers: Record<string, string>, options: SendOptions) => Promise<SendResult>;
}

export interface RoundResult {
  /** Deliveries written by the fan-out. */
  fannedOut: number;
  /** Events whose fan-out failed this round (poison events; see webhooks.fan-out.ts). */
  fanOutFailed: number;
  /** Deliveries attempted. */
  attempted: number;
  /** The round stopped at a bound (sends or time) with work left: the next one starts without waiting a poll. */
  busy: boolean;
}

export interface WebhookWorker {
  /** One round: fan out, then send what is due; answers once every send it started has ended. */
  runOnce(): Promise<RoundResult>;
  start(): void;
  /** Stops looking for work, lets the sends under way finish, releases unsent claims. */
  stop(): Promise<void>;
}

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, logger } = options;
  // The clock nowDb() reads (sub-millisecond), so a delivery written a moment ago (a redelivery) is due
  // to this worker at once: with Date.now() it could be microseconds in its future and wait a poll.
  const clock = options.clock ?? (() => performance.timeOrigin + performance.now());
  const random = options.random ?? Math.random;
  const sendOne = options.send ?? sendHttp;
  const dbTime = (ms: number): string => nowDb(() => ms);
  const leaseMs = options.timeoutMs + 20_000;
  const roundMs = options.roundMs ?? ROUND_MS;

  const fanOut = createFanOut({ db, logger, now: () => dbTime(clock()) });

  async function attempt(delivery: ClaimedDelivery, token: string): Promise<void> {
    const timestamp = Math.floor(clock() / 1000);
    const headers = {
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(delivery.secret, delivery.event_id, timestamp, delivery.payload),
    };
    const result = await sendOne(delivery.url, delivery.payload, headers, { timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivateTargets, allowHttp: options.allowHttp });
    const now = clock();
    const attempts = delivery.attempts + 1;
    const base = { attempts, last_response_code: result.status ?? null, last_error: result.error ?? null, now: dbTime(now) };
    const outcome = result.refused ? 'refused' : outcomeOf(result.status);
    logger.info({ delivery: delivery.id, webhook: delivery.webhook_id, attempts, status: result.status, outcome }, 'webhook attempt');
    // The attempt's record and what it means for the subscription are one transaction (retried
    // when MariaDB picks it as a deadlock victim against another worker's claim). A worker that
    // lost its claim (its lease ran out and another took the delivery) changes nothing.
    type Fields = Omit<queue.AttemptResult, keyof typeof base> & { last_error?: string | null };
    const record = (fields: Fields, then?: (tx: Knex.Transaction) => Promise<void>): Promise<void> =>
      inTransaction(db, async (tx) => {
        if ((await queue.recordAttempt(tx, delivery.id, token, { ...base, ...fields })) && then) await then(tx);
      });
    if (outcome === 'delivered') {
      options.metrics?.webhookDelivery('delivered');
      await record({ status: 'delivered', next_attempt_at: null, delivered_at: dbTime(now) }, (tx) => queue.markHealthy(tx, delivery.webhook_id));
      return;
    }
    if (outcome === 'refused' || outcome === 'gone') {
      options.metrics?.webhookDelivery(outcome);
      const error = outcome === 'gone' ? 'The endpoint answered 410 Gone; the subscription is switched off.' : result.error!;
      await record(
        { last_error: error, status: 'failed', next_attempt_at: null, delivered_at: null },
        outcome === 'gone' ? (tx) => queue.disable(tx, delivery.webhook_id, `The endpoint answered 410 Gone at ${toApiTime(dbTime(now))}.`, dbTime(now)) : undefined,
      );
      return;
    }
    const delay = nextDelayMs(attempts, random(), retryAfterMs(result.retryAfter, now));
    options.metrics?.webhookDelivery(delay === undefined ? 'failed' : 'retrying');
    const fields = {
      last_error: result.error ?? `The endpoint answered ${result.status}.`,
      status: delay === undefined ? ('failed' as const) : ('retrying' as const),
      next_attempt_at: delay === undefined ? null : dbTime(now + delay),
      delivered_at: null,
    };
    await record(fields, async (tx) => {
      await queue.markFailing(tx, delivery.webhook_id, dbTime(now));
      if (delivery.failing_since !== null && delivery.failing_since <= dbTime(now - FAILING_DISABLE_AFTER_MS)) {
        const reason = `Every delivery since ${toApiTime(delivery.failing_since)} failed; switched off at ${toApiTime(dbTime(now))}.`;
        await queue.disable(tx, delivery.webhook_id, reason, dbTime(now));
      } else if (fields.status === 'retrying') {
        await queue.holdIfSwitchedOff(tx, delivery.id, delivery.webhook_id);
      }
    });
  }

  /**
   * Records a claimed delivery that something now withholds (a module switched off since it was
   * queued: a retry, a ping, a redelivery) as failed, unsent, with the reason, as the fan-out would
   * not have queued it; counted only when this claim still held it. Its attempts and the status of
   * the last one stay as they were: nothing was sent.
   */
  async function withhold(delivery: ClaimedDelivery, withheld: Withheld, token: string): Promise<void> {
    const fields = { status: 'failed' as const, attempts: delivery.attempts, next_attempt_at: null, last_response_code: delivery.last_response_code, last_error: `Not sent: ${withheldReason(withheld)}.${withheld.of === 'catalogue' ? '' : ' Switch it on, then redeliver.'}`, delivered_at: null };
    const recorded = await inTransaction(db, (tx) => queue.recordAttempt(tx, delivery.id, token, { ...fields, now: dbTime(clock()) }));
    if (!recorded) return;
    options.metrics?.webhookDelivery('withheld');
    logger.info({ delivery: delivery.id, webhook: delivery.webhook_id, withheld }, 'webhook delivery withheld');
  }

  /** Sends under way (each ends recorded or not: a failed record is logged), and per subscription. */
  const sends = new Set<Promise<void>>();
  const sendsOf = new Map<number, number>();
  const sendsOfCompany = new Map<number, number>();
  /** The company of each subscription met (it never changes): claims read only new ones. */
  const companyOf = new Map<number, number>();
  /** Claims whose sends are under way: each ends when its sends have and its unsent rows are released. */
  const claims = new Set<Promise<void>>();
  /**
   * Until then (performance.now()) no claim is made while a subscription or company is at its
   * bound. Such a claim passes over the bounded ones' deliveries row by row, so when it finds
   * nothing it has read their whole backlog: made again as each send ended, one tenant's backlog
   * of 40,000 took 250 s to send instead of about 70. After one finds nothing, the next waits
   * quietMs (a poll, kept within 100 ms and a round); the bounded ones' own sends claim again as they
   * end, below the bound, without passing over.
   */
  let quietUntil = 0;
  const quietMs = Math.min(Math.max(options.pollMs, 100), roundMs);
  const perSubscription = { max: SENDS_PER_SUBSCRIPTION, sending: sendsOf };
  const perCompany = { max: SENDS_PER_COMPANY, sending: sendsOfCompany, companyOf };

  function startSend(delivery: ClaimedDelivery, token: string): Promise<void> {
    countSend(sendsOf, delivery.webhook_id, 1);
    countSend(sendsOfCompany, delivery.company_id, 1);
    const send: Promise<void> = attempt(delivery, token)
      .catch((err: unknown) => logger.error({ err, delivery: delivery.id, webhook: delivery.webhook_id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        sends.delete(send);
        countSend(sendsOf, delivery.webhook_id, -1);
        countSend(sendsOfCompany, delivery.company_id, -1);
      });
    sends.add(send);
    return send;
  }

  /**
   * Claims up to `limit` due deliveries (SENDS_PER_SUBSCRIPTION at most of one subscription, those
   * under way counted) and starts sending them; answers how many. One lease (the send timeout and a
   * margin) covers the sends made under it, so no delivery is sent after its claim ran out (another
   * worker may have taken it by then); the claim is released once its sends have ended.
   */
  async function claimAndSend(limit: number): Promise<number> {
    const bounded = queue.atBound(perSubscription).length + queue.atBound(perCompany).length > 0;
    if (bounded && performance.now() < quietUntil) return 0;
    const now = clock();
    const token = randomUUID();
    await inTransaction(db, (tx) => queue.claimDue(tx, { now: dbTime(now), until: dbTime(now + leaseMs), token, limit, perSubscription, perCompany }));
    const claimed = await queue.claimedBy(db, token);
    if (claimed.length === 0) {
      if (bounded) quietUntil = performance.now() + quietMs;
      return 0;
    }
    const verdicts = await withheldNow(db, claimed).catch(async (error: unknown) => {
      await inTransaction(db, (tx) => queue.releaseClaims(tx, token)).catch(() => undefined);
      throw error;
    });
    // The sends start first; the withheld are recorded beside them, under the same claim.
    const work = claimed.map((delivery, i) => {
      const withheld = verdicts[i];
      if (withheld === undefined) return startSend(delivery, token);
      return withhold(delivery, withheld, token).catch((err: unknown) => logger.error({ err, delivery: delivery.id, webhook: delivery.webhook_id }, 'webhook withheld delivery could not be recorded'));
    });
    const claim: Promise<void> = Promise.all(work)
      .then(() => inTransaction(db, (tx) => queue.releaseClaims(tx, token)))
      .catch((err: unknown) => logger.error({ err }, 'webhook claims could not be released; their lease ends them'))
      .finally(() => claims.delete(claim));
    claims.add(claim);
    return claimed.length;
  }

  /** Until one of the sends under way ends, or `ms`. */
  async function aSendEnds(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([...sends, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /**
   * Keeps PARALLEL_SENDS sends going: claims for each send that ends, without waiting for the
   * slowest of a batch. Ends when a claim found nothing while no send was under way (nothing is
   * due, or nothing the per-subscription bound lets it take), when no send ended within
   * SLOT_WAIT_MS (the next round comes after a poll), or cut at its bound (MAX_SENDS_PER_ROUND
   * claims, or `forMs`, a wait for a send included): the next round then fans out the new events
   * at once. The sends under way go on. A claim made while sends are
   * recorded may find nothing (on MariaDB the record of an attempt locks its subscription's row,
   * which the claim's SKIP LOCKED then passes over): it is made again once a send has ended.
   */
  async function deliverDue(forMs: number): Promise<{ attempted: number; cut: boolean }> {
    const endsAt = performance.now() + forMs;
    let attempted = 0;
    while (!stopping) {
      if (attempted >= MAX_SENDS_PER_ROUND || performance.now() >= endsAt) return { attempted, cut: true };
      const underWay = sends.size;
      const claimed = underWay < PARALLEL_SENDS ? await claimAndSend(Math.min(PARALLEL_SENDS - underWay, MAX_SENDS_PER_ROUND - attempted)) : 0;
      attempted += claimed;
      if (claimed > 0) continue;
      if (underWay === 0) break;
      // Claim again when a send has ended (meanwhile, or within the wait).
      if (sends.size < underWay) continue;
      const waitMs = Math.min(SLOT_WAIT_MS, Math.max(0, endsAt - performance.now()));
      await aSendEnds(waitMs);
      // A wait that ran SLOT_WAIT_MS with no send ending: every send is held by slow endpoints, the
      // next round comes after a poll. One cut short by the round's end: the next comes at once.
      if (sends.size === underWay) return { attempted, cut: waitMs < SLOT_WAIT_MS };
    }
    return { attempted, cut: false };
  }

  /** Until every claim under way has ended (its sends recorded, its unsent rows released). */
  async function claimsEnded(): Promise<void> {
    while (claims.size > 0) await Promise.all([...claims]);
  }

  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> | undefined;

  /**
   * Fans out, sends what is due (claiming for at most `forMs`), writes the heartbeat; sends that
   * outlast it go on (the loop's next round starts meanwhile).
   */
  async function round(forMs: number): Promise<RoundResult> {
    const fanned = await fanOut();
    // New deliveries of others may be due at once.
    if (fanned.deliveries > 0) quietUntil = 0;
    const { attempted, cut } = await deliverDue(forMs);
    await recordHeartbeat(db, WORKER_HEARTBEAT);
    return { fannedOut: fanned.deliveries, fanOutFailed: fanned.failed, attempted, busy: fanned.more || cut };
  }

  /** One round, not cut by time, and the end of every send it started. */
  async function runOnce(): Promise<RoundResult> {
    const result = await round(Infinity);
    await claimsEnded();
    return result;
  }

  const roundFailures = repeatedFailureLog(logger, 'error', { failing: 'webhook worker round failed', recovered: 'webhook worker rounds work again' });
  const loop = (): void => {
    if (stopping) return;
    let busy = false;
    current = round(roundMs)
      .then(
        (result) => {
          busy = result.busy;
          roundFailures.succeeded();
        },
        (err: unknown) => roundFailures.failed(err),
      )
      .finally(() => {
        // A busy worker goes on at once (a timer of 0 still lets I/O in); an idle one waits a poll.
        if (!stopping) timer = setTimeout(loop, busy ? 0 : options.pollMs);
      });
  };

  return {
    runOnce,
    start: () => {
      stopping = false;
      loop();
    },
    stop: async () => {
      stopping = true;
      if (timer) clearTimeout(timer);
      await current;
      await claimsEnded();
    },
  };
}
