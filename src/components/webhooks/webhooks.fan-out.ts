/**
 * Fan-out: outbox events become one delivery per active subscription that wants them (and may get
 * them: the modules, see `delivered`), with the exact body it will send. Bounded whatever the
 * burst: a transaction locks at most EVENTS_PER_BATCH events and takes no more once it has written
 * BATCH_BYTES of payloads; event data is loaded a few events at a time (LOAD_BYTES, or one larger
 * event); each INSERT holds at most INSERT_ROWS rows and
 * INSERT_BYTES of payloads (SQLite refuses more than 500 terms in a compound SELECT, MariaDB a
 * statement beyond max_allowed_packet, 16 MiB by default), so the memory of a round is a few MiB
 * however many subscriptions want an event. A round fans out at most ROUND_EVENTS events.
 *
 * A batch that fails is retried one event per transaction, so one event that cannot be fanned out
 * (its data is not JSON, a delivery of it cannot be written) holds up no other: its failure is
 * counted on its outbox row and logged without data, and after MAX_FAN_OUT_ATTEMPTS failures it
 * is set aside (fan_out_failed_at), listed by the CLI's `list-failed-events`.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { inTransaction } from '../../platform/db/transaction.js';
import { isConnectionError, isSchemaMissing } from '../../platform/db/driver-errors.js';
import { errorSerializer } from '../../platform/logger.js';
import * as queue from './webhooks.queue.js';
import type { OutboxEvent } from './webhooks.queue.js';
import type { WebhookRow } from './webhooks.repository.js';
import { wants } from './webhooks.rules.js';
import { modulesOn, withheldByModules } from './webhooks.modules.js';
import { eventBody } from '../../platform/outbox.js';
import { InsertBatches } from '../../platform/db/insert-batches.js';

export const EVENTS_PER_BATCH = 200;
export const ROUND_EVENTS = 1000;
export const INSERT_ROWS = 100;
export const INSERT_BYTES = 1024 * 1024;
export const LOAD_BYTES = 2 * 1024 * 1024;
export const BATCH_BYTES = 8 * 1024 * 1024;
/** A poison event is set aside after this many failed fan-outs (one a round). */
export const MAX_FAN_OUT_ATTEMPTS = 3;

export interface FanOutResult {
  /** Events fanned out (marked dispatched). */
  events: number;
  /** Deliveries written. */
  deliveries: number;
  /** Events whose fan-out failed this round (set aside or to be tried again). */
  failed: number;
  /** Events are waiting still: the round stopped at ROUND_EVENTS (the next round may start at once). */
  more: boolean;
}

type DeliveryRow = Parameters<typeof queue.insertDeliveries>[1][number];
type Subscription = WebhookRow & { for_company: number };

/** Buffers delivery rows and writes them in INSERTs of at most INSERT_ROWS rows and INSERT_BYTES of payloads. */
function deliveryWriter(tx: Knex.Transaction, now: string) {
  const batches = new InsertBatches<DeliveryRow>({ maxRows: INSERT_ROWS, maxBytes: INSERT_BYTES });
  const written = { rows: 0, bytes: 0 };
  const write = async (rows: DeliveryRow[] | undefined): Promise<void> => {
    if (rows && rows.length > 0) await queue.insertDeliveries(tx, rows, now);
  };
  return {
    written,
    flush: () => write(batches.take()),
    async add(row: DeliveryRow): Promise<void> {
      const size = Buffer.byteLength(row.payload);
      await write(batches.add(row, size));
      written.rows++;
      written.bytes += size;
    },
  };
}

/** Consecutive groups of events whose data together stays within LOAD_BYTES (an event larger than that alone). */
function loadGroups(events: OutboxEvent[]): OutboxEvent[][] {
  const groups: OutboxEvent[][] = [];
  let size = Infinity;
  for (const event of events) {
    if (size + event.size > LOAD_BYTES) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(event);
    size += event.size;
  }
  return groups;
}

/** An event's stored data; JSON.parse's own error would quote the data, this one does not. */
function parsed(event: OutboxEvent, data: string | undefined): unknown {
  try {
    return JSON.parse(data ?? '');
  } catch {
    throw new Error(`The stored data of event ${event.event_id} is not valid JSON.`);
  }
}

/**
 * Whether the subscription gets the event, by the modules on (webhooks.rules.ts withheldBy: a
 * provider whose stock module is off gets no stock.changed of its clients; a company whose api
 * module is off gets nothing). An event written while a module was off is not delivered later when
 * it is switched on (the feed shows it then); the worker checks again before each send, so that a
 * delivery queued before a module went off is not sent either.
 */
function delivered(event: OutboxEvent, subscription: Subscription, modules: ReadonlyMap<number, ReadonlySet<string>>): boolean {
  return withheldByModules(event.type, Number(subscription.company_id), Number(event.company_id), modules) === undefined;
}

/**
 * Whether the subscription was on when the event was recorded, as its last switch tells (the
 * fan-out may come after a switch: a backlog, workers stopped for a deploy): on and switched on
 * before the event (or never switched), or off and switched off after it. An event recorded while
 * it was on gets its delivery, held while it is off; one recorded while it was off gets none.
 */
function onWhenRecorded(event: OutboxEvent, subscription: Subscription): boolean {
  const switchedAt = subscription.switched_at;
  return subscription.active ? switchedAt === null || event.occurred_at >= switchedAt : switchedAt !== null && event.occurred_at < switchedAt;
}

/** One transaction: fans out the waiting events (or only `onlyId`) until a bound is reached. */
async function fanOutBatch(tx: Knex.Transaction, now: string, onlyId?: number): Promise<{ events: number; deliveries: number; full: boolean }> {
  const events = await queue.undispatchedEvents(tx, onlyId === undefined ? EVENTS_PER_BATCH : 1, onlyId);
  if (events.length === 0) return { events: 0, deliveries: 0, full: false };
  const subscriptions: Subscription[] = await queue.subscriptionsFor(tx, [...new Set(events.map((e) => e.company_id))]);
  const filters = new Map(subscriptions.map((s) => [s.id, JSON.parse(s.events) as string[]]));
  const modules = await modulesOn(tx, [...events.map((e) => e.company_id), ...subscriptions.map((s) => s.company_id)]);
  const writer = deliveryWriter(tx, now);
  const done: number[] = [];
  const targetsOf = (event: OutboxEvent): Subscription[] =>
    subscriptions.filter((s) => s.for_company === event.company_id && onWhenRecorded(event, s) && wants(filters.get(s.id)!, event.type) && delivered(event, s, modules));
  for (const group of loadGroups(events)) {
    if (writer.written.bytes >= BATCH_BYTES) break;
    const targets = new Map(group.map((event) => [event, targetsOf(event)]));
    // Only the data of events some subscription wants is read: the others are marked dispatched as they are.
    const wanted = group.filter((event) => targets.get(event)!.length > 0);
    const data = wanted.length > 0 ? await queue.eventData(tx, wanted.map((e) => e.id)) : new Map<number, string>();
    for (const event of group) {
      const wantedBy = targets.get(event)!;
      if (wantedBy.length > 0) {
        const payload = eventBody({ id: event.event_id, type: event.type, occurredAt: event.occurred_at, companyId: event.company_id, data: parsed(event, data.get(event.id)) });
        for (const s of wantedBy) await writer.add({ webhook_id: s.id, event_id: event.event_id, event_type: event.type, payload, held: !s.active });
      }
      done.push(event.id);
    }
  }
  await writer.flush();
  await queue.markDispatched(tx, done, now);
  return { events: done.length, deliveries: writer.written.rows, full: events.length === EVENTS_PER_BATCH || done.length < events.length };
}

/** The error as a log line and the outbox row keep it: the driver's message, never the statement. */
function failureText(error: unknown): string {
  const serialized = errorSerializer(error) as { message?: string; code?: string };
  const message = serialized.message ?? String(error);
  return serialized.code ? `${serialized.code}: ${message}` : message;
}

export function createFanOut(options: { db: Knex; logger: Logger; now: () => string }) {
  const { db, logger, now } = options;

  /** The events of a failed batch, one transaction each: those that fail are counted, and set aside at the last attempt. */
  async function isolate(result: FanOutResult): Promise<void> {
    for (const event of await queue.waitingEvents(db, EVENTS_PER_BATCH)) {
      try {
        const one = await inTransaction(db, (tx) => fanOutBatch(tx, now(), event.id));
        result.events += one.events;
        result.deliveries += one.deliveries;
      } catch (error) {
        // When the failure was the database's, recording it fails too and the round ends here.
        const attempts = await inTransaction(db, (tx) => queue.recordFanOutFailure(tx, event.id, failureText(error), now(), MAX_FAN_OUT_ATTEMPTS));
        const setAside = attempts >= MAX_FAN_OUT_ATTEMPTS;
        logger[setAside ? 'error' : 'warn'](
          { err: error, outboxId: event.id, event: event.event_id, company: event.company_id, type: event.type, attempts },
          setAside ? 'webhook fan-out of an event failed; the event is set aside (list-failed-events)' : 'webhook fan-out of an event failed; it is tried again next round',
        );
        result.failed++;
      }
    }
  }

  /** One round of fan-out: batches until nothing waits or ROUND_EVENTS events were handled. */
  return async function fanOut(): Promise<FanOutResult> {
    const result: FanOutResult = { events: 0, deliveries: 0, failed: 0, more: false };
    while (result.events + result.failed < ROUND_EVENTS) {
      let batch: Awaited<ReturnType<typeof fanOutBatch>>;
      try {
        batch = await inTransaction(db, (tx) => fanOutBatch(tx, now()));
      } catch (error) {
        // Without the database (or its tables: not migrated) no event can be fanned out alone
        // either: the round fails, and says so once.
        if (isConnectionError(error) || isSchemaMissing(error)) throw error;
        logger.warn({ err: error }, 'webhook fan-out batch failed; its events are fanned out one by one');
        // The next attempt of an event that failed is the next round's, a poll later.
        await isolate(result);
        return result;
      }
      result.events += batch.events;
      result.deliveries += batch.deliveries;
      if (!batch.full) return result;
    }
    result.more = true;
    return result;
  };
}
