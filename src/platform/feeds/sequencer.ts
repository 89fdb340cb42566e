/**
 * The order of a feed (GET /api/events), given after commit so a reader never skips a row.
 *
 * An auto-increment id is taken when a row is inserted, not when its transaction commits: a
 * reader that follows `id > cursor` passes id 11 (committed) while id 10 is still in flight, and
 * never reads 10. So a row is written without a place (`feed_seq` null) and a stamper gives the
 * rows that have committed their places in one short transaction that first locks the feed's
 * counter row (feed_sequences): two stampers take turns (on a Galera cluster, the second one's
 * write to that row fails certification and is run again), and all the places one stamper gives
 * become visible at once, after every place before them. A reader asks for `feed_seq > cursor`
 * in feed_seq order, so what it has passed can never gain a row behind it.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { inTransaction } from '../db/transaction.js';

export interface FeedSpec {
  /** The row of feed_sequences that counts this feed's places. */
  name: string;
  table: string;
  idColumn: string;
  seqColumn: string;
}

export const EVENTS_FEED: FeedSpec = { name: 'events', table: 'outbox_events', idColumn: 'id', seqColumn: 'feed_seq' };

const BATCH = 500;

/** Whether a committed row waits for its place (an index probe). */
export async function hasUnstamped(db: Knex, spec: FeedSpec): Promise<boolean> {
  return (await db(spec.table).select(spec.idColumn).whereNull(spec.seqColumn).first()) !== undefined;
}

/** Gives up to `batchSize` committed rows without a place the next places, oldest id first; answers how many. */
export async function stampFeed(db: Knex, spec: FeedSpec, batchSize = BATCH): Promise<number> {
  return inTransaction(db, async (tx) => {
    // The lock first: what this transaction reads next is what committed before its turn.
    await tx('feed_sequences').where('name', spec.name).update({ last_seq: tx.ref('last_seq') });
    const counter = await tx('feed_sequences').select('last_seq').where('name', spec.name).first();
    if (!counter) throw new Error(`feed_sequences has no row '${spec.name}'`);
    const rows: Array<Record<string, number | string>> = await tx(spec.table).select(spec.idColumn).whereNull(spec.seqColumn).orderBy(spec.idColumn).limit(batchSize);
    if (rows.length === 0) return 0;
    const first = Number(counter.last_seq) + 1;
    const ids = rows.map((r) => r[spec.idColumn]!);
    const cases = ids.map(() => 'WHEN ? THEN ?').join(' ');
    const bindings = ids.flatMap((id, i) => [id, first + i]);
    await tx(spec.table)
      .whereIn(spec.idColumn, ids)
      .update({ [spec.seqColumn]: tx.raw(`CASE ?? ${cases} END`, [spec.idColumn, ...bindings]) });
    await tx('feed_sequences').where('name', spec.name).update({ last_seq: first + ids.length - 1 });
    return ids.length;
  });
}

/** Stamps until nothing waits (or `maxBatches` batches); answers how many rows got a place. */
export async function stampAll(db: Knex, spec: FeedSpec, maxBatches = 1000): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const stamped = await stampFeed(db, spec);
    total += stamped;
    if (stamped < BATCH) break;
  }
  return total;
}

export interface FeedStamper {
  /** Stops the timer; resolves once a stamp under way has finished (before the database closes). */
  stop(): Promise<void>;
}

/** Stamps the feeds every `intervalMs` in this process (a row waits at most about that long for its place). */
export function startFeedStamper(db: Knex, logger: Logger, specs: readonly FeedSpec[] = [EVENTS_FEED], intervalMs = 250): FeedStamper {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = (async () => {
      for (const spec of specs) if (await hasUnstamped(db, spec)) await stampAll(db, spec);
    })()
      .catch((err: unknown) => logger.warn({ err }, 'feed stamping failed; it is tried again'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
