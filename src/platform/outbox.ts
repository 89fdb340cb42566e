/**
 * The event outbox writer: a change records its events in the same transaction as itself, so an
 * event exists exactly when its change was committed. The webhook worker delivers them.
 */
import type { Knex } from 'knex';
import { eventId } from '../kernel/ids.js';
import { toApiTime } from '../kernel/time.js';
import { insertInBatches } from './db/insert-batches.js';
import { writeAtCommit, type CommitWriter } from './db/transaction.js';
import type { Schema } from './openapi/schemas.js';

export type EventType = Schema<'WebhookEventType'>;

export type DomainEvent = {
  /** The client company that owns the data. */
  readonly companyId: number;
  readonly type: EventType;
} & (
  | {
      /** The resource as the REST API shows it. */
      readonly data: unknown;
    }
  | {
      /**
       * The resource made of the event's time (the API's form), for data that shows when it
       * changed: a stock row's `updated_at` is the time of its `stock.changed`.
       */
      readonly dataAt: (time: string) => unknown;
    }
);

/** An event left to write at the end, with its data as text already unless it is made of the event's time. */
interface PendingEvent {
  id: string;
  event: DomainEvent;
  dataText?: string;
}

/** A transaction's events, written at its end in as few statements as they fit in, all at its one instant (writeAtCommit). */
const eventsAtCommit: CommitWriter<PendingEvent> = {
  async write(tx, pending, at) {
    const time = toApiTime(at);
    const rows = pending.map(({ id, event, dataText }) => ({
      event_id: id,
      company_id: event.companyId,
      type: event.type,
      data: dataText ?? JSON.stringify('dataAt' in event ? event.dataAt(time) : event.data),
      occurred_at: at,
    }));
    // A 500-line order's event is about 2 MB: ten of them in one statement pass MariaDB's packet limit.
    await insertInBatches(tx, 'outbox_events', rows, { maxRows: 500, maxBytes: 4 * 1024 * 1024 }, (row) => Buffer.byteLength(row.data));
  },
};

/** How an event may stand for the one recorded last in the transaction under the same key (see recordEvent). */
export interface EventMerge {
  key: string;
  /** One event that stands for `before` and the new one; undefined: they stay two. */
  into: (before: DomainEvent) => DomainEvent | undefined;
}

/**
 * Records `event` inside the caller's transaction, written when its work is done at the time the
 * transaction's other changes stand at; answers its event id. With `merge`, the event recorded last
 * under its key (the same stock row) may stand for both, in its place and with its id.
 */
export async function recordEvent(tx: Knex.Transaction, event: DomainEvent, merge?: EventMerge): Promise<string> {
  // Data is read now: what the caller changes in it afterwards is not the event's.
  const textOf = (e: DomainEvent): string | undefined => ('data' in e ? JSON.stringify(e.data) : undefined);
  const pending: PendingEvent = { id: eventId(), event, dataText: textOf(event) };
  let id = pending.id;
  const into = (before: PendingEvent): PendingEvent | undefined => {
    const merged = merge!.into(before.event);
    if (merged === undefined) return undefined;
    id = before.id;
    return { id, event: merged, dataText: textOf(merged) };
  };
  await writeAtCommit(tx, eventsAtCommit, pending, merge && { key: merge.key, into });
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
