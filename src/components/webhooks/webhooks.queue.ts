/**
 * The SQL of the delivery queue, for the worker: fan-out of outbox events into deliveries, claims
 * (a conditional UPDATE whose rows decide, with FOR UPDATE SKIP LOCKED on MySQL/MariaDB so that
 * workers of one server do not wait on each other; see claimDue for a Galera cluster; one worker
 * on SQLite), and the result of each attempt, written only by the claim's holder.
 */
import type { Knex } from 'knex';
import { engineOf } from '../../platform/db/database.js';
import type { DeliveryRow, WebhookRow } from './webhooks.repository.js';

export interface OutboxRow {
  id: number;
  event_id: string;
  company_id: number;
  type: string;
  data: string;
  occurred_at: string;
}

export interface ClaimedDelivery {
  id: number;
  webhook_id: number;
  event_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  failing_since: string | null;
}

function skipLocked<T extends Knex.QueryBuilder>(tx: Knex, query: T): T {
  return engineOf(tx) === 'mysql' ? (query.forUpdate().skipLocked() as T) : query;
}

export async function undispatchedEvents(tx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
  return skipLocked(tx, tx('outbox_events').select('id', 'event_id', 'company_id', 'type', 'data', 'occurred_at').whereNull('dispatched_at').orderBy('id').limit(limit));
}

/** Active subscriptions of these companies or of their providers. */
export async function subscriptionsFor(tx: Knex.Transaction, companyIds: number[]): Promise<Array<WebhookRow & { for_company: number }>> {
  if (companyIds.length === 0) return [];
  const direct = tx('webhooks as w').select('w.*', 'w.company_id as for_company').whereIn('w.company_id', companyIds).where('w.active', true);
  const viaProvider = tx('webhooks as w')
    .join('companies as c', 'c.provider_id', 'w.company_id')
    .select('w.*', 'c.id as for_company')
    .whereIn('c.id', companyIds)
    .where('w.active', true);
  return direct.unionAll(viaProvider);
}

export async function markDispatched(tx: Knex.Transaction, ids: number[], now: string): Promise<void> {
  if (ids.length > 0) await tx('outbox_events').whereIn('id', ids).update({ dispatched_at: now });
}

export async function insertDeliveries(
  tx: Knex.Transaction,
  rows: Array<{ webhook_id: number; event_id: string; event_type: string; payload: string }>,
  now: string,
): Promise<void> {
  if (rows.length === 0) return;
  await tx('webhook_deliveries').insert(rows.map((r) => ({ ...r, status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, updated_at: now })));
}

/** The deliveries a worker may claim at `now`: pending or retrying, due, and not held by a live claim. */
function claimable<T extends Knex.QueryBuilder>(query: T, now: string, prefix = ''): T {
  return query
    .whereIn(`${prefix}status`, ['pending', 'retrying'])
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
 */
export async function claimDue(tx: Knex.Transaction, options: { now: string; until: string; token: string; limit: number }): Promise<number> {
  const due = skipLocked(
    tx,
    claimable(
      tx('webhook_deliveries as d').join('webhooks as w', 'w.id', 'd.webhook_id').select('d.id').where('w.active', true),
      options.now,
      'd.',
    )
      .orderBy('d.next_attempt_at')
      .limit(options.limit),
  );
  const ids = ((await due) as Array<{ id: number | string }>).map((r) => Number(r.id));
  if (ids.length === 0) return 0;
  return claimable(tx('webhook_deliveries').whereIn('id', ids), options.now).update({ claim_token: options.token, claimed_until: options.until });
}

export async function claimedBy(tx: Knex, token: string): Promise<ClaimedDelivery[]> {
  const rows = await tx('webhook_deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .select('d.id', 'd.webhook_id', 'd.event_id', 'd.payload', 'd.attempts', 'w.url', 'w.secret', 'w.failing_since')
    .where('d.claim_token', token)
    .orderBy('d.id');
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
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

export async function disable(db: Knex, webhookId: number, reason: string, now: string): Promise<void> {
  await db('webhooks').where('id', webhookId).update({ active: false, disabled_reason: reason, updated_at: now });
}
