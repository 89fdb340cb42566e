/**
 * GET /api/events: the outbox read as a feed, each event exactly the body its webhook delivery
 * carries. A reader passes the id of the last event it has as `after`; the feed answers the events
 * that follow it in feed order (src/platform/feeds/sequencer.ts: every committed event once, in an
 * order that never changes). A company sees the events of the clients in its scope whose module
 * is on for that client. Events are kept EVENTS_RETENTION_DAYS (30 at least) and then removed.
 */
import type { Knex } from 'knex';
import type { ModuleSlug } from '../../kernel/access.js';
import { EVENT_CATALOGUE } from '../../generated/events.generated.js';
import { nowDb } from '../../kernel/time.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { InputError } from '../../platform/errors.js';
import { EVENTS_FEED, hasUnstamped, stampAll, STAMP_BATCHES_PER_READ } from '../../platform/feeds/sequencer.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { eventEnvelopeText, type EventType } from '../../platform/outbox.js';
import { JsonText } from '../../platform/openapi/json-text.js';
import { companyScope, type TenantContext } from '../../platform/tenant-context.js';
import { activeModulesOfEach } from '../companies/companies.service.js';
import * as repository from './events.repository.js';
import type { Visibility } from './events.repository.js';

/** The module each event type belongs to (the content module of its resource: openapi/events.yaml). */
export const EVENT_MODULES = Object.fromEntries(Object.entries(EVENT_CATALOGUE).map(([type, entry]) => [type, entry.module])) as Readonly<Record<EventType, ModuleSlug>>;
// A module of the catalogue that is not a module of the service fails the build here.
EVENT_CATALOGUE satisfies Readonly<Record<EventType, { readonly module: ModuleSlug }>>;

const messages = {
  unknownAfter: (id: string) =>
    `No event ${id} in this feed: pass the id of an event it answered (events are kept for the retention period); leave after out to start from the oldest event kept.`,
};

export type EventPage = Schema<'EventFeedPage'>;

/**
 * The clients in scope grouped by the event types they may see (one group per set of modules on):
 * a type's content module must be on for the client and for the company in X-Company-Id (a
 * provider whose stock module is off reads no stock through REST, nor its clients' stock.changed).
 */
async function visibility(ctx: TenantContext, types: readonly EventType[] | undefined): Promise<Visibility[]> {
  const scope = companyScope(ctx);
  const caller = scope.companyId;
  const groups = new Map<string, { companyIds: number[]; types: EventType[] }>();
  const modules = await activeModulesOfEach(ctx.db, [...new Set([caller, ...scope.clientIds])]);
  const callerOn = new Set(modules.get(caller));
  const wanted = (types ?? (Object.keys(EVENT_MODULES) as EventType[])).filter((type) => callerOn.has(EVENT_MODULES[type]));
  for (const clientId of scope.clientIds) {
    const on = new Set(modules.get(clientId));
    const visible = wanted.filter((type) => on.has(EVENT_MODULES[type]));
    if (visible.length === 0) continue;
    const key = visible.join(',');
    const group = groups.get(key) ?? { companyIds: [], types: visible };
    group.companyIds.push(clientId);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * An event as the feed lists it: the body its webhook delivery carries. Its data is an object as
 * recordEvent stored it; stored text that is not one at its ends (cut short, written by hand) fails
 * the page (500, logged with the event) rather than go out as a 200 that is not JSON.
 */
function eventText(row: repository.FeedEventRow): string {
  if (!(row.data.startsWith('{') && row.data.endsWith('}'))) throw new Error(`The stored data of event ${row.event_id} is not a JSON object.`);
  return eventEnvelopeText({ id: row.event_id, type: row.type, occurredAt: row.occurred_at, companyId: Number(row.company_id), dataText: row.data });
}

/**
 * A page of the feed, written as text: each event's stored data (JSON.stringify's, recordEvent) goes
 * out as it is stored rather than parsed and serialized again (a 500-event page on MariaDB: about
 * 1.3 ms of CPU less).
 */
export async function listEvents(ctx: TenantContext, query: { after?: string; types?: readonly EventType[]; perPage: number }): Promise<JsonText<EventPage>> {
  if (await hasUnstamped(ctx.db, EVENTS_FEED)) await stampAll(ctx.db, EVENTS_FEED, STAMP_BATCHES_PER_READ);
  let afterSeq = 0;
  if (query.after !== undefined) {
    const place = await repository.placeOf(ctx.db, query.after, companyScope(ctx).clientIds);
    if (place === undefined) throw InputError.field('after', messages.unknownAfter(query.after));
    afterSeq = place;
  }
  const groups = await visibility(ctx, query.types);
  // One row more than the page says whether anything follows yet.
  const rows = groups.length === 0 ? [] : await repository.eventsAfter(ctx.db, { afterSeq, groups, limit: query.perPage + 1 });
  const page = rows.slice(0, query.perPage);
  const nextCursor = rows.length > query.perPage ? JSON.stringify(page[page.length - 1]!.event_id) : 'null';
  return new JsonText(`{"data":[${page.map(eventText).join(',')}],"meta":{"next_cursor":${nextCursor}}}`);
}

const DAY_MS = 86_400_000;

/** The scheduled cleanup: events older than the retention whose fan-out is over go, in batches. */
export function pruneEvents(retentionDays: number): { name: string; run(db: Knex): Promise<void> } {
  return {
    name: 'prune-events',
    run: async (db) => {
      const cutoff = nowDb(() => Date.now() - retentionDays * DAY_MS);
      // Every instance runs this job: a batch whose rows another instance's job deleted at the same
      // moment on another Galera node fails certification and is run again (then finding less).
      while ((await inTransaction(db, (tx) => repository.deleteEventsBefore(tx, cutoff, 1000))) > 0);
    },
  };
}
