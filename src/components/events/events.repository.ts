/** The outbox as a feed: events in their feed order, and the retention cleanup. */
import type { Knex } from 'knex';

export interface FeedEventRow {
  event_id: string;
  type: string;
  company_id: number;
  occurred_at: string | Date;
  data: string;
  feed_seq: number | string;
}

/** Companies and the event types each may see. */
export interface Visibility {
  companyIds: readonly number[];
  types: readonly string[];
}

function visibleTo<T extends Knex.QueryBuilder>(query: T, groups: readonly Visibility[]): T {
  return query.where((q) => {
    for (const group of groups) q.orWhere((g) => g.whereIn('company_id', group.companyIds as number[]).whereIn('type', group.types as string[]));
  }) as T;
}

/** The feed place of the event `eventId` when it has one and belongs to one of `companyIds`. */
export async function placeOf(tx: Knex, eventId: string, companyIds: readonly number[]): Promise<number | undefined> {
  const row = await tx('outbox_events').select('feed_seq').where('event_id', eventId).whereIn('company_id', companyIds as number[]).whereNotNull('feed_seq').first();
  return row ? Number(row.feed_seq) : undefined;
}

/** Up to `limit` events visible to `groups` after place `afterSeq`, in feed order. */
export async function eventsAfter(tx: Knex, options: { afterSeq: number; groups: readonly Visibility[]; limit: number }): Promise<FeedEventRow[]> {
  const query = tx('outbox_events')
    .select('event_id', 'type', 'company_id', 'occurred_at', 'data', 'feed_seq')
    .where('feed_seq', '>', options.afterSeq)
    .orderBy('feed_seq')
    .limit(options.limit);
  return (await visibleTo(query, options.groups)) as FeedEventRow[];
}

/**
 * The ids of up to `batch` events that occurred before `cutoff` and whose fan-out is over (fanned
 * out, or set aside as poison), oldest first. In occurred_at order, so the database reads the
 * occurred_at index from its start up to the cutoff; in id order SQLite read the whole outbox every
 * run when nothing was old enough (61 ms with 106,000 events, on the event loop).
 */
export function endedEventsBefore(db: Knex, cutoff: string, batch: number): Knex.QueryBuilder {
  return db('outbox_events')
    .select('id')
    .where('occurred_at', '<', cutoff)
    .where((q) => q.whereNotNull('dispatched_at').orWhereNotNull('fan_out_failed_at'))
    .orderBy('occurred_at')
    .limit(batch);
}

/** Deletes up to `batch` events of endedEventsBefore; answers how many. Deliveries keep their own copy of the body. */
export async function deleteEventsBefore(db: Knex, cutoff: string, batch: number): Promise<number> {
  const ids = (await endedEventsBefore(db, cutoff, batch)).map((r: { id: number }) => r.id);
  if (ids.length === 0) return 0;
  return db('outbox_events').whereIn('id', ids).delete();
}
