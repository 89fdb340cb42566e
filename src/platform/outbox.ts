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

/**
 * An event as webhooks deliver it and GET /api/events lists it (the document's WebhookEvent), as
 * JSON text with its data text spliced in as it is: the feed passes the data as recordEvent stored
 * it (JSON.stringify's), without parsing a page of events only to serialize them again.
 */
export function eventEnvelopeText(event: { id: string; type: string; occurredAt: string | Date; companyId: number; dataText: string }): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":"${toApiTime(event.occurredAt)}","company_id":${event.companyId},"data":${event.dataText}}`;
}

/** The envelope's start as eventEnvelopeText writes it, up to its company_id. */
const ENVELOPE_COMPANY = /^\{"id":"[^"\\]*","type":"[^"\\]*","timestamp":"[^"\\]*","company_id":(\d+),/;

/** The company an event body is about (its envelope's company_id), read without parsing its data. */
export function envelopeCompanyId(body: string): number {
  const match = ENVELOPE_COMPANY.exec(body);
  if (match) return Number(match[1]);
  const parsed = JSON.parse(body) as { company_id?: unknown };
  if (typeof parsed.company_id !== 'number') throw new Error('The event body has no company_id.');
  return parsed.company_id;
}

/** The body of a delivery, exactly as it is sent and signed. */
export function eventBody(event: { id: string; type: string; occurredAt: string; companyId: number; data: unknown }): string {
  return eventEnvelopeText({ ...event, dataText: JSON.stringify(event.data) });
}
