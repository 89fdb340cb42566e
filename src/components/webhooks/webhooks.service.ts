/**
 * Webhook subscriptions of a company: `{ url, events, description, active }`. The signing secret
 * is shown when the subscription is created and when it is rotated, never on a read. Deliveries
 * are listed, sent again (same event, same `webhook-id`) and tested with a `webhook.ping`.
 */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import { eventId } from '../../kernel/ids.js';
import type { PageRequest } from '../../kernel/paging.js';
import { nowDb } from '../../kernel/time.js';
import type { Paged } from '../../platform/db/queries.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { InputError, NotFoundError, type FieldErrors } from '../../platform/errors.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import * as repository from './webhooks.repository.js';
import type { DeliveryStatus, Webhook, WebhookDelivery, WebhookRow } from './webhooks.repository.js';
import { mixesWildcard, PING_TYPE, withheldReason } from './webhooks.rules.js';
import { withheldNow, type QueuedDelivery } from './webhooks.modules.js';
import { newSecret } from './webhooks.signing.js';
import { normalisedUrl, refuseTarget, type TargetPolicy } from './webhooks.targets.js';
import { lockCompany } from '../companies/companies.service.js';
import { eventBody } from '../../platform/outbox.js';

type WithSecret = Schema<'WebhookWithSecret'>;

/** The longest url stored (the document's maxLength, the column's size), normalised. */
const MAX_URL_LENGTH = 2048;

const messages = {
  notFound: (id: number) => `Webhook ${id} was not found.`,
  tooMany: (max: number) =>
    `The company already has ${max} webhook subscriptions, the most it may have. Delete one it no longer needs (DELETE /api/webhooks/{id}), or widen one's events, instead of adding another.`,
  deliveryNotFound: (id: number) => `Delivery ${id} was not found.`,
  mixedEvents: 'Use "*" alone for every event, or name the events without "*", not both.',
  urlTooLong: (length: number) =>
    `The url must not be longer than ${MAX_URL_LENGTH} characters as it is stored, normalised (new URL(url).href: characters beyond ASCII percent-encoded); this one is ${length}.`,
  pingOff: (id: number) => `Webhook ${id} is switched off, so it cannot be pinged. Switch it on with PUT /api/webhooks/${id} {"active": true}, then ping it again.`,
  redeliverOff: (id: number) => `Webhook ${id} is switched off, so nothing is sent to it. Switch it on with PUT /api/webhooks/${id} {"active": true}, then redeliver again.`,
};

/**
 * A 422 on `company_id` when a module withholds the delivery now (the subscriber's api or webhooks
 * module, or the event's content module, is off): the worker would record it failed unsent.
 */
async function refuseWithheld(db: Knex, delivery: QueuedDelivery): Promise<void> {
  const [withheld] = await withheldNow(db, [delivery]);
  if (withheld?.of === 'catalogue') throw InputError.field('company_id', `Nothing is sent: ${withheldReason(withheld)}.`);
  if (withheld) throw InputError.field('company_id', `Nothing is sent while ${withheldReason(withheld)}. Switch it on, then try again.`);
}

function companyOf(scope: CompanyScope): number {
  if (scope.kind !== 'company') throw new Error('Webhook writes need a company scope (X-Company-Id)');
  return scope.companyId;
}

/**
 * Checks the url and events a create or update gives (every problem in one 422); answers the url
 * as it is stored (normalised) and the events without repeats.
 */
async function checkTarget(body: { url?: string; events?: string[] }, policy: TargetPolicy): Promise<{ url?: string; events?: string[] }> {
  const errors: FieldErrors = {};
  const refusal = body.url === undefined ? undefined : await refuseTarget(body.url, policy);
  // What is stored may be longer than what was sent (`é` is `%C3%A9`): its length is checked too.
  const url = body.url === undefined || refusal ? undefined : normalisedUrl(body.url);
  if (refusal) errors.url = [refusal];
  else if (url !== undefined && url.length > MAX_URL_LENGTH) errors.url = [messages.urlTooLong(url.length)];
  if (body.events && mixesWildcard(body.events)) errors.events = [messages.mixedEvents];
  const problems = Object.values(errors).flat();
  if (problems.length > 0) throw new InputError(errors, problems.length === 1 ? problems[0] : undefined);
  return { url, events: body.events && unique(body.events) };
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

async function requireWebhook(ctx: TenantContext, id: number): Promise<WebhookRow> {
  const row = await repository.findWebhook(ctx.db, ctx.scope, id);
  if (!row) throw new NotFoundError(messages.notFound(id));
  return row;
}

export function listWebhooks(ctx: TenantContext, page: PageRequest): Promise<Paged<Webhook>> {
  return repository.listWebhooks(ctx.db, ctx.scope, page);
}

export async function getWebhook(ctx: TenantContext, id: number): Promise<Webhook> {
  return repository.toWebhook(await requireWebhook(ctx, id));
}

/** Where deliveries may go, and how many subscriptions a company may own. */
export interface WebhookPolicy extends TargetPolicy {
  maxSubscriptions: number;
}

export async function createWebhook(ctx: TenantContext, body: Schema<'WebhookCreate'>, policy: WebhookPolicy): Promise<WithSecret> {
  const companyId = companyOf(ctx.scope);
  const { url, events } = await checkTarget(body, policy);
  const secret = newSecret();
  const id = await inTransaction(ctx.db, async (tx) => {
    await lockCompany(tx, companyId);
    if ((await repository.countOwnedWebhooks(tx, companyId)) >= policy.maxSubscriptions) throw InputError.field('url', messages.tooMany(policy.maxSubscriptions));
    return repository.insertWebhook(tx, {
      company_id: companyId,
      url: url!,
      events: events!,
      description: body.description ?? null,
      secret,
      active: body.active ?? true,
    });
  });
  return { ...repository.toWebhook((await repository.findWebhook(ctx.db, ctx.scope, id))!), secret };
}

export async function updateWebhook(ctx: TenantContext, id: number, body: Schema<'WebhookUpdate'>, policy: WebhookPolicy): Promise<Webhook | WithSecret> {
  const current = await requireWebhook(ctx, id);
  const { url, events } = await checkTarget(body, policy);
  const changes: Parameters<typeof repository.updateWebhook>[2] = {};
  if (url !== undefined) changes.url = url;
  if (events !== undefined) changes.events = events;
  if (body.description !== undefined) changes.description = body.description;
  if (body.active !== undefined) {
    changes.active = body.active;
    // Switching a subscription on again clears why the server had switched it off.
    if (body.active) Object.assign(changes, { disabled_reason: null, failing_since: null });
  }
  const secret = body.rotate_secret ? newSecret() : undefined;
  if (secret) changes.secret = secret;
  await inTransaction(ctx.db, async (tx) => {
    const now = nowDb();
    // Read under the row lock: the worker may have switched it off since (a 410).
    const switching = body.active !== undefined && body.active !== (await repository.lockActive(tx, current.id));
    await repository.updateWebhook(tx, current.id, switching ? { ...changes, switched_at: now } : changes);
    if (body.active === false) await repository.holdDeliveries(tx, current.id);
    if (body.active === true) await repository.resumeDeliveries(tx, current.id, now);
  });
  const updated = repository.toWebhook((await repository.findWebhook(ctx.db, ctx.scope, id))!);
  return secret ? { ...updated, secret } : updated;
}

export async function deleteWebhook(ctx: TenantContext, id: number): Promise<void> {
  const current = await requireWebhook(ctx, id);
  await ctx.db.transaction((tx) => repository.deleteWebhook(tx, current.id));
}

export async function listDeliveries(ctx: TenantContext, id: number, status: DeliveryStatus | undefined, page: PageRequest): Promise<Paged<WebhookDelivery>> {
  const webhook = await requireWebhook(ctx, id);
  return repository.listDeliveries(ctx.db, webhook.id, status, page);
}

async function queued(db: Knex, deliveryId: number): Promise<WebhookDelivery> {
  return repository.toDelivery(await repository.findDeliveryById(db, deliveryId));
}

/** Sends a delivery's event again, as a new delivery with the same `webhook-id`. */
export async function redeliver(ctx: TenantContext, id: number, deliveryId: number): Promise<WebhookDelivery> {
  const webhook = await requireWebhook(ctx, id);
  const delivery = await repository.findDelivery(ctx.db, webhook.id, deliveryId);
  if (!delivery) throw new NotFoundError(messages.deliveryNotFound(deliveryId));
  const created = await inTransaction(ctx.db, async (tx) => {
    // A switched-off subscription sends nothing: a 202 here would queue what never goes. Locked, so
    // that a switch-off made meanwhile holds this delivery too, or is seen here.
    if (!(await repository.lockActive(tx, webhook.id))) throw InputError.field('active', messages.redeliverOff(webhook.id));
    await refuseWithheld(tx, { company_id: webhook.company_id, event_type: delivery.event_type, payload: delivery.payload });
    return repository.insertDelivery(tx, { webhook_id: webhook.id, event_id: delivery.event_id, event_type: delivery.event_type, payload: delivery.payload, now: nowDb() });
  });
  return queued(ctx.db, created);
}

/** Queues a `webhook.ping` test event to the subscription. */
export async function ping(ctx: TenantContext, id: number): Promise<WebhookDelivery> {
  const webhook = await requireWebhook(ctx, id);
  const created = await inTransaction(ctx.db, async (tx) => {
    // As redeliver: locked against a switch-off made meanwhile.
    if (!(await repository.lockActive(tx, webhook.id))) throw InputError.field('active', messages.pingOff(webhook.id));
    await refuseWithheld(tx, { company_id: webhook.company_id, event_type: PING_TYPE });
    const now = nowDb();
    const event = eventId();
    return repository.insertDelivery(tx, {
      webhook_id: webhook.id,
      event_id: event,
      event_type: PING_TYPE,
      payload: eventBody({ id: event, type: PING_TYPE, occurredAt: now, companyId: webhook.company_id, data: { webhook_id: webhook.id } }),
      now,
    });
  });
  return queued(ctx.db, created);
}
