/**
 * The SQL of the delivery queue, for the worker: fan-out of outbox events into deliveries, claims
 * (a conditional UPDATE whose rows decide, with FOR UPDATE SKIP LOCKED on MySQL/MariaDB so that
 * workers of one server do not wait on each other; see claimDue for a Galera cluster; one worker
 * on SQLite), and the result of each attempt, written only by the claim's holder.
 */
import type { Knex } from 'knex';
import { engineOf } from '../../platform/db/database.js';
import { throughIndex } from '../../platform/db/queries.js';
import { holdDeliveries, WAITING_STATUSES, type DeliveryRow, type WebhookRow } from './webhooks.repository.js';

/** An outbox event waiting for its fan-out, without its data (loaded a few at a time). */
export interface OutboxEvent {
  id: number;
  event_id: string;
  company_id: number;
  type: string;
  occurred_at: string;
  /** The length of its data (characters on SQLite, bytes on MariaDB): what loading it costs. */
  size: number;
}

export interface ClaimedDelivery {
  id: number;
  webhook_id: number;
  /** The company that owns the subscription. */
  company_id: number;
  event_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  /** The status its last attempt was answered with, if any. */
  last_response_code: number | null;
  url: string;
  secret: string;
  failing_since: string | null;
}

/** The deliveries by due time (migration 010): what claims read, oldest due first. */
const DUE_INDEX = 'webhook_deliveries_next_attempt_at_status_index';

function skipLocked<T extends Knex.QueryBuilder>(tx: Knex, query: T): T {
  return engineOf(tx) === 'mysql' ? (query.forUpdate().skipLocked() as T) : query;
}

/**
 * Up to `limit` events waiting for their fan-out, oldest first (an event set aside as poison is no
 * longer waiting), locked for this transaction on MariaDB (SKIP LOCKED: another worker takes the
 * next ones); `onlyId` narrows it to one event.
 */
export async function undispatchedEvents(tx: Knex.Transaction, limit: number, onlyId?: number): Promise<OutboxEvent[]> {
  const query = tx('outbox_events')
    .select('id', 'event_id', 'company_id', 'type', 'occurred_at', tx.raw('length(data) as size'))
    .whereNull('dispatched_at')
    .whereNull('fan_out_failed_at')
    .orderBy('id')
    .limit(limit);
  if (onlyId !== undefined) query.where('id', onlyId);
  const rows = (await skipLocked(tx, query)) as Array<OutboxEvent & { id: number | string; size: number | string | null }>;
  return rows.map((r) => ({ ...r, id: Number(r.id), size: Number(r.size ?? 0) }));
}

/** Up to `limit` events waiting for their fan-out, oldest first, without locking them. */
export async function waitingEvents(db: Knex, limit: number): Promise<Array<Omit<OutboxEvent, 'occurred_at' | 'size'>>> {
  const rows = await db('outbox_events')
    .select('id', 'event_id', 'company_id', 'type')
    .whereNull('dispatched_at')
    .whereNull('fan_out_failed_at')
    .orderBy('id')
    .limit(limit);
  return rows.map((r: { id: number | string; event_id: string; company_id: number; type: string }) => ({ ...r, id: Number(r.id) }));
}

/** The stored data (JSON text) of these events, by id. */
export async function eventData(tx: Knex.Transaction, ids: number[]): Promise<Map<number, string>> {
  const rows = await tx('outbox_events').select('id', 'data').whereIn('id', ids);
  return new Map(rows.map((r: { id: number | string; data: string }) => [Number(r.id), r.data]));
}

/**
 * Counts a failed fan-out of an event and keeps its error; at `maxAttempts` failures the event is
 * set aside (fan_out_failed_at) and no longer fanned out. Answers the failures counted so far.
 */
export async function recordFanOutFailure(tx: Knex.Transaction, id: number, error: string, now: string, maxAttempts: number): Promise<number> {
  await tx('outbox_events').where('id', id).update({ fan_out_attempts: tx.raw('fan_out_attempts + 1'), fan_out_error: error.slice(0, 500) });
  const attempts = Number((await tx('outbox_events').select('fan_out_attempts').where('id', id).first()).fan_out_attempts);
  if (attempts >= maxAttempts) await tx('outbox_events').where('id', id).update({ fan_out_failed_at: now });
  return attempts;
}

/** An event set aside because its fan-out kept failing. */
export interface FailedEvent {
  id: number;
  event_id: string;
  company_id: number;
  type: string;
  occurred_at: string;
  fan_out_attempts: number;
  fan_out_error: string | null;
  fan_out_failed_at: string;
}

/** The events set aside, newest first, and how many there are. */
export async function failedEvents(db: Knex, limit: number): Promise<{ rows: FailedEvent[]; total: number }> {
  const base = db('outbox_events').whereNotNull('fan_out_failed_at');
  const [{ total }] = await base.clone().count({ total: '*' });
  const rows = await base
    .clone()
    .select('id', 'event_id', 'company_id', 'type', 'occurred_at', 'fan_out_attempts', 'fan_out_error', 'fan_out_failed_at')
    .orderBy('id', 'desc')
    .limit(limit);
  return { rows: rows.map((r: FailedEvent) => ({ ...r, id: Number(r.id) })), total: Number(total) };
}

/** Puts events set aside back in the queue (after the cause was fixed): the next rounds fan them out again. */
export async function requeueFailedEvents(db: Knex, eventIds: string[] | 'all'): Promise<number> {
  const query = db('outbox_events').whereNotNull('fan_out_failed_at');
  if (eventIds !== 'all') query.whereIn('event_id', eventIds);
  return query.update({ fan_out_failed_at: null, fan_out_attempts: 0, fan_out_error: null });
}

/**
 * The subscriptions of these companies or of their providers that may get their events: those on,
 * and those switched off at a known time (an event recorded before it still gets its delivery).
 */
export async function subscriptionsFor(tx: Knex.Transaction, companyIds: number[]): Promise<Array<WebhookRow & { for_company: number }>> {
  if (companyIds.length === 0) return [];
  const onOrSwitched = (q: Knex.QueryBuilder) => q.where('w.active', true).orWhereNotNull('w.switched_at');
  const direct = tx('webhooks as w').select('w.*', 'w.company_id as for_company').whereIn('w.company_id', companyIds).where(onOrSwitched);
  const viaProvider = tx('webhooks as w')
    .join('companies as c', 'c.provider_id', 'w.company_id')
    .select('w.*', 'c.id as for_company')
    .whereIn('c.id', companyIds)
    .where(onOrSwitched);
  return direct.unionAll(viaProvider);
}

export async function markDispatched(tx: Knex.Transaction, ids: number[], now: string): Promise<void> {
  if (ids.length > 0) await tx('outbox_events').whereIn('id', ids).update({ dispatched_at: now });
}

/** New deliveries, due now; a `held` one (its subscription is off) has no due time (holdDeliveries). */
export async function insertDeliveries(
  tx: Knex.Transaction,
  rows: Array<{ webhook_id: number; event_id: string; event_type: string; payload: string; held: boolean }>,
  now: string,
): Promise<void> {
  if (rows.length === 0) return;
  await tx('webhook_deliveries').insert(
    rows.map(({ held, ...r }) => ({ ...r, status: 'pending', attempts: 0, next_attempt_at: held ? null : now, created_at: now, updated_at: now })),
  );
}

/** At most `max` sends at once of one key (a subscription, a company); `sending` counts those under way. */
export interface SendBound {
  max: number;
  sending: ReadonlyMap<number, number>;
}

/**
 * The per-company bound, with the company of each subscription the caller has met (a
 * subscription's company never changes): claimDue reads only the ones it does not know yet.
 */
export interface CompanyBound extends SendBound {
  companyOf: Map<number, number>;
}

/** The keys at their bound. */
export const atBound = (bound: SendBound | undefined): number[] => (bound ? [...bound.sending].filter(([, n]) => n >= bound.max).map(([key]) => key) : []);

/** Adds the owning company of each of these subscriptions that `known` lacks. */
async function learnCompanies(tx: Knex, webhookIds: readonly number[], known: Map<number, number>): Promise<void> {
  const unknown = [...new Set(webhookIds)].filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  const rows = (await tx('webhooks').select('id', 'company_id').whereIn('id', unknown)) as Array<{ id: number | string; company_id: number | string }>;
  for (const row of rows) known.set(Number(row.id), Number(row.company_id));
}

/** The deliveries a worker may claim at `now`: pending or retrying, due, and not held by a live claim. */
function claimable<T extends Knex.QueryBuilder>(query: T, now: string, prefix = ''): T {
  return query
    .whereIn(`${prefix}status`, WAITING_STATUSES)
    .where(`${prefix}next_attempt_at`, '<=', now)
    .where((q) => q.whereNull(`${prefix}claimed_until`).orWhere(`${prefix}claimed_until`, '<', now)) as T;
}

/**
 * Takes up to `limit` due deliveries of active subscriptions for `token` until `until`; answers
 * how many it took. The SELECT only proposes candidates (SKIP LOCKED keeps the workers of one
 * database server apart); the conditional UPDATE decides: it takes a row only if the row is still
 * claimable as the server sees it then, and the worker sends only the rows that carry its token
 * (claimedBy, after the commit). On a Galera cluster SKIP LOCKED holds on one node only: two
 * workers on two nodes may propose and update the same rows, and certification then lets the
 * first commit win and fails the other with a deadlock error (1213), which inTransaction retries;
 * the retry sees the winner's claim (or loses certification again) and never takes the row, so a
 * delivery is never sent by both.
 *
 * `perSubscription` keeps one subscription from taking every send of the worker: at most `max`
 * deliveries of a subscription are sent at once (`sending` counts those under way). Subscriptions
 * at that bound are left out of the search, and of the rows proposed (a few times `limit`, oldest
 * first) no more are taken of one subscription than its bound leaves. `perCompany` does the same
 * for the subscriptions of one company together (keyed by the company that owns them), so that one
 * tenant's slow endpoints, however many subscriptions it makes, cannot hold every send.
 */
export async function claimDue(
  tx: Knex.Transaction,
  options: { now: string; until: string; token: string; limit: number; perSubscription?: SendBound; perCompany?: CompanyBound },
): Promise<number> {
  const bound = options.perSubscription;
  const companyBound = options.perCompany;
  const full = atBound(bound);
  const fullCompanies = atBound(companyBound);
  // The deliveries alone, in the order of their due-time index, so that the search stops at its
  // limit: joined to webhooks (for `active`), MariaDB read and locked every due delivery, sorted
  // them and kept the first (73,000 rows locked for a claim of 32 in a backlog of 37,000: claims
  // slowed with the backlog and deadlocked with the attempts' records).
  // The paused subscriptions and those of companies at their bound, read apart (outside the locking read).
  const passedOver = (await tx('webhooks')
    .where('active', false)
    .modify((q) => {
      if (fullCompanies.length > 0) q.orWhereIn('company_id', fullCompanies);
    })
    .pluck('id')) as number[];
  const query = claimable(throughIndex(tx, 'webhook_deliveries', DUE_INDEX).select('id', 'webhook_id'), options.now);
  if (full.length + passedOver.length > 0) query.whereNotIn('webhook_id', [...full, ...passedOver]);
  const due = (await skipLocked(tx, query.orderBy('next_attempt_at').limit(bound || companyBound ? options.limit * 4 : options.limit))) as Array<{
    id: number | string;
    webhook_id: number | string;
  }>;
  const companyOf = companyBound?.companyOf ?? new Map<number, number>();
  if (companyBound) await learnCompanies(tx, due.map((row) => Number(row.webhook_id)), companyOf);
  const taken = new Map(bound?.sending ?? []);
  const takenOfCompany = new Map(companyBound?.sending ?? []);
  const ids: number[] = [];
  for (const row of due) {
    if (ids.length === options.limit) break;
    const webhook = Number(row.webhook_id);
    const company = companyOf.get(webhook);
    const sending = taken.get(webhook) ?? 0;
    const sendingOfCompany = company === undefined ? 0 : (takenOfCompany.get(company) ?? 0);
    if (bound && sending >= bound.max) continue;
    if (companyBound && sendingOfCompany >= companyBound.max) continue;
    taken.set(webhook, sending + 1);
    if (company !== undefined) takenOfCompany.set(company, sendingOfCompany + 1);
    ids.push(Number(row.id));
  }
  if (ids.length === 0) return 0;
  return claimable(tx('webhook_deliveries').whereIn('id', ids), options.now).update({ claim_token: options.token, claimed_until: options.until });
}

export async function claimedBy(tx: Knex, token: string): Promise<ClaimedDelivery[]> {
  const rows = await tx('webhook_deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .select('d.id', 'd.webhook_id', 'w.company_id', 'd.event_id', 'd.event_type', 'd.payload', 'd.attempts', 'd.last_response_code', 'w.url', 'w.secret', 'w.failing_since')
    .where('d.claim_token', token)
    .orderBy('d.id');
  return rows.map((r) => ({ ...r, id: Number(r.id), company_id: Number(r.company_id), last_response_code: r.last_response_code === null ? null : Number(r.last_response_code) }));
}

/** What an attempt writes on its delivery, at `now`. */
export type AttemptResult = Pick<DeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'last_response_code' | 'last_error' | 'delivered_at'> & { now: string };

/** Writes the result of an attempt, only while this claim still holds the delivery. */
export async function recordAttempt(db: Knex, id: number, token: string, result: AttemptResult): Promise<boolean> {
  const { now, ...fields } = result;
  const changed = await db('webhook_deliveries')
    .where({ id, claim_token: token })
    .update({ ...fields, claim_token: null, claimed_until: null, updated_at: now });
  return changed === 1;
}

export async function releaseClaims(db: Knex, token: string): Promise<void> {
  await db('webhook_deliveries').where('claim_token', token).update({ claim_token: null, claimed_until: null });
}

/** After a delivered attempt the subscription is no longer failing. */
export async function markHealthy(db: Knex, webhookId: number): Promise<void> {
  await db('webhooks').where('id', webhookId).whereNotNull('failing_since').update({ failing_since: null });
}

/** After a failed attempt: the subscription is failing since now, unless it already was. */
export async function markFailing(db: Knex, webhookId: number, now: string): Promise<void> {
  await db('webhooks').where('id', webhookId).whereNull('failing_since').update({ failing_since: now });
}

/**
 * After a failed attempt was recorded as a retry: when the subscription was switched off while the
 * attempt was under way (another of its sends answered 410, a PUT), the retry is held as the
 * switch held the rest (holdDeliveries). The row lock orders it with the switch.
 */
export async function holdIfSwitchedOff(tx: Knex.Transaction, deliveryId: number, webhookId: number): Promise<void> {
  const off = await tx('webhooks').select('id').where({ id: webhookId, active: false }).forUpdate().first();
  if (off) await tx('webhook_deliveries').where('id', deliveryId).whereIn('status', WAITING_STATUSES).update({ next_attempt_at: null });
}

/** Switches a subscription off, holding its waiting deliveries (holdDeliveries). */
export async function disable(tx: Knex.Transaction, webhookId: number, reason: string, now: string): Promise<void> {
  await tx('webhooks').where('id', webhookId).update({ active: false, disabled_reason: reason, switched_at: now, updated_at: now });
  await holdDeliveries(tx, webhookId);
}
