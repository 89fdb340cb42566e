/** Webhook subscriptions and their delivery log: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { paged, type Paged } from '../../platform/db/queries.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type Webhook = Schema<'Webhook'>;
export type WebhookDelivery = Schema<'WebhookDelivery'>;
export type DeliveryStatus = Schema<'WebhookDeliveryStatus'>;
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying', 'delivered', 'failed'];
/** The statuses of a delivery still to be sent. */
export const WAITING_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying'];

export interface WebhookRow {
  id: number;
  company_id: number;
  url: string;
  events: string;
  description: string | null;
  secret: string;
  active: boolean | number;
  disabled_reason: string | null;
  failing_since: string | null;
  /** When `active` last changed (null: never since it was made). */
  switched_at: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_response_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string | Date;
}

/** The subscription as reads show it: never its secret. */
export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    company_id: row.company_id,
    url: row.url,
    events: JSON.parse(row.events) as Webhook['events'],
    description: row.description,
    active: Boolean(row.active),
    disabled_reason: row.disabled_reason,
    created_at: toApiTime(row.created_at),
    updated_at: toApiTime(row.updated_at),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: Number(row.id),
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_response_code: row.last_response_code,
    last_error: row.last_error,
    next_attempt_at: row.next_attempt_at === null ? null : toApiTime(row.next_attempt_at),
    delivered_at: row.delivered_at === null ? null : toApiTime(row.delivered_at),
    created_at: toApiTime(row.created_at),
  };
}

/** Subscriptions of the company in scope and, for a provider, of its clients. */
function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  const query = tx('webhooks').select('*');
  return scope.kind === 'all' ? query : query.whereIn('company_id', [scope.companyId, ...scope.clientIds]);
}

export function listWebhooks(tx: Knex, scope: CompanyScope, page: PageRequest): Promise<Paged<Webhook>> {
  return paged(inScope(tx, scope).orderBy('id'), page, toWebhook);
}

export async function findWebhook(tx: Knex, scope: CompanyScope, id: number): Promise<WebhookRow | undefined> {
  return inScope(tx, scope).where('id', id).first();
}

export async function insertWebhook(
  tx: Knex,
  fields: { company_id: number; url: string; events: string[]; description: string | null; secret: string; active: boolean },
): Promise<number> {
  const now = nowDb();
  return insertReturningId(tx, 'webhooks', { ...fields, events: JSON.stringify(fields.events), created_at: now, updated_at: now });
}

/** How many subscriptions the company owns itself (its clients' are theirs). */
export async function countOwnedWebhooks(tx: Knex, companyId: number): Promise<number> {
  const row = await tx('webhooks').where('company_id', companyId).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

export async function updateWebhook(tx: Knex, id: number, changes: Partial<Omit<WebhookRow, 'events'>> & { events?: string[] }): Promise<void> {
  const { events, ...rest } = changes;
  await tx('webhooks').where('id', id).update({ ...rest, ...(events ? { events: JSON.stringify(events) } : {}), updated_at: nowDb() });
}

/**
 * The waiting deliveries (`pending`, `retrying`) of a subscription switched off are held: no
 * `next_attempt_at`, so the claims' search of the due index (next_attempt_at <= now) never reads
 * them. Left due, a switched-off subscription's backlog (three days of retries, when failing
 * switched it off) was read past by every claim of every company.
 */
export async function holdDeliveries(tx: Knex, webhookId: number): Promise<void> {
  await tx('webhook_deliveries').where('webhook_id', webhookId).whereIn('status', WAITING_STATUSES).whereNotNull('next_attempt_at').update({ next_attempt_at: null });
}

/** A subscription switched on again: its held deliveries are due at `now`. */
export async function resumeDeliveries(tx: Knex, webhookId: number, now: string): Promise<void> {
  await tx('webhook_deliveries').where('webhook_id', webhookId).whereIn('status', WAITING_STATUSES).whereNull('next_attempt_at').update({ next_attempt_at: now });
}

/**
 * Whether the subscription is on, its row locked for the transaction: a switch-off made meanwhile
 * (which holds the waiting deliveries it finds) waits for this one, or this one sees it.
 */
export async function lockActive(tx: Knex.Transaction, webhookId: number): Promise<boolean> {
  const row = (await tx('webhooks').select('active').where('id', webhookId).forUpdate().first()) as { active: boolean | number } | undefined;
  return Boolean(row?.active);
}

export async function deleteWebhook(tx: Knex, id: number): Promise<void> {
  await tx('webhook_deliveries').where('webhook_id', id).delete();
  await tx('webhooks').where('id', id).delete();
}

export function listDeliveries(tx: Knex, webhookId: number, status: DeliveryStatus | undefined, page: PageRequest): Promise<Paged<WebhookDelivery>> {
  const query = tx('webhook_deliveries').select('*').where('webhook_id', webhookId).orderBy('id', 'desc');
  if (status) query.where('status', status);
  return paged(query, page, toDelivery);
}

export async function findDelivery(tx: Knex, webhookId: number, id: number): Promise<DeliveryRow | undefined> {
  return tx('webhook_deliveries').select('*').where({ webhook_id: webhookId, id }).first();
}

export async function insertDelivery(
  tx: Knex,
  fields: { webhook_id: number; event_id: string; event_type: string; payload: string; now: string },
): Promise<number> {
  const { now, ...rest } = fields;
  return insertReturningId(tx, 'webhook_deliveries', { ...rest, status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, updated_at: now });
}

export async function findDeliveryById(tx: Knex, id: number): Promise<DeliveryRow> {
  return tx('webhook_deliveries').select('*').where('id', id).first();
}
