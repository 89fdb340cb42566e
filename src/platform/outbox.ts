/**
 * The event outbox writer: a change records its events in the same transaction as itself, so an
 * event exists exactly when its change was committed. The webhook worker delivers them.
 */
import type { Knex } from 'knex';
import { eventId } from '../kernel/ids.js';
import { nowDb, toApiTime } from '../kernel/time.js';
import type { Schema } from './openapi/schemas.js';

export type EventType = Schema<'WebhookEventType'>;

export interface DomainEvent {
  /** The client company that owns the data. */
  readonly companyId: number;
  readonly type: EventType;
  /** The resource as the REST API shows it. */
  readonly data: unknown;
}

/** Records `event` inside the caller's transaction; answers its event id. */
export async function recordEvent(tx: Knex.Transaction, event: DomainEvent): Promise<string> {
  const id = eventId();
  await tx('outbox_events').insert({
    event_id: id,
    company_id: event.companyId,
    type: event.type,
    data: JSON.stringify(event.data),
    occurred_at: nowDb(),
  });
  return id;
}

export type EventEnvelope = Schema<'WebhookEvent'>;

/** An event as webhooks deliver it and GET /api/events lists it. */
export function eventEnvelope(event: { id: string; type: string; occurredAt: string | Date; companyId: number; data: unknown }): EventEnvelope {
  return { id: event.id, type: event.type, timestamp: toApiTime(event.occurredAt), company_id: event.companyId, data: event.data } as EventEnvelope;
}

/**
 * An event's envelope as JSON text, its stored data text spliced in as it is: the same text as
 * JSON.stringify(eventEnvelope(...)) with that data parsed (recordEvent stored it with
 * JSON.stringify), without parsing a page of events only to serialize them again.
 */
export function eventEnvelopeText(event: { id: string; type: string; occurredAt: string | Date; companyId: number; dataText: string }): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":"${toApiTime(event.occurredAt)}","company_id":${event.companyId},"data":${event.dataText}}`;
}

/** The body of a delivery, exactly as it is sent and signed. */
export function eventBody(event: { id: string; type: string; occurredAt: string; companyId: number; data: unknown }): string {
  return JSON.stringify(eventEnvelope(event));
}
