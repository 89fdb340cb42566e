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
 *
 * A feed read by time (`since`) also keeps a horizon: each stamp writes on its rows the latest
 * creation time of every row placed so far (never falling). A row created at or after a time is
 * placed at or after the first place whose horizon reaches that time, so a reader starts there
 * instead of scanning the feed from its beginning; no clock is trusted, only the rows' own times.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { toApiTime, fromApiTime } from '../../kernel/time.js';
import { inTransaction } from '../db/transaction.js';
import { repeatedFailureLog } from '../repeated-failure.js';

export interface FeedSpec {
  /** The row of feed_sequences that counts this feed's places. */
  name: string;
  table: string;
  idColumn: string;
  seqColumn: string;
  /** A feed read by time: the rows' creation time, and the column of the horizon its stamps keep. */
  horizon?: { timeColumn: string; column: string };
}

export const EVENTS_FEED: FeedSpec = { name: 'events', table: 'outbox_events', idColumn: 'id', seqColumn: 'feed_seq' };

/** The stock ledger read as a feed (GET /api/stock/movements), read by time too (`since`). */
export const STOCK_MOVEMENTS_FEED: FeedSpec = {
  name: 'stock_movements',
  table: 'stock_movements',
  idColumn: 'id',
  seqColumn: 'feed_seq',
  horizon: { timeColumn: 'created_at', column: 'feed_horizon' },
};

/** Every feed the stamper keeps. */
export const FEEDS: readonly FeedSpec[] = [EVENTS_FEED, STOCK_MOVEMENTS_FEED];

const BATCH = 500;

/** Consecutive ids `from`..`to` of a batch; `offset` is the index of `from` in the batch. */
export interface IdRun {
  from: number;
  to: number;
  offset: number;
}

/**
 * The ids of a batch (ascending) as runs of consecutive ids: every id between a run's ends is in
 * the batch, so `BETWEEN` names exactly its rows.
 */
export function runsOf(ids: readonly number[]): IdRun[] {
  const runs: IdRun[] = [];
  ids.forEach((id, index) => {
    const last = runs[runs.length - 1];
    if (last !== undefined && id === last.to + 1) last.to = id;
    else runs.push({ from: id, to: id, offset: index });
  });
  return runs;
}

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
    const columns = spec.horizon ? [spec.idColumn, spec.horizon.timeColumn] : [spec.idColumn];
    const rows: Array<Record<string, number | string | Date>> = await tx(spec.table).select(columns).whereNull(spec.seqColumn).orderBy(spec.idColumn).limit(batchSize);
    if (rows.length === 0) return 0;
    const first = Number(counter.last_seq) + 1;
    const ids = rows.map((r) => Number(r[spec.idColumn]));
    const runs = runsOf(ids);
    // Each run's places are its ids shifted by one number: one branch a run (a bulk's events are one run).
    const cases = runs.map(() => 'WHEN ?? BETWEEN ? AND ? THEN ?? + ?').join(' ');
    const bindings = runs.flatMap((run) => [spec.idColumn, run.from, run.to, spec.idColumn, first + run.offset - run.from]);
    const horizon = spec.horizon ? { [spec.horizon.column]: await horizonAfter(tx, spec, Number(counter.last_seq), rows) } : {};
    await tx(spec.table)
      .where((rowsOfBatch) => {
        for (const run of runs) rowsOfBatch.orWhereBetween(spec.idColumn, [run.from, run.to]);
      })
      .update({ [spec.seqColumn]: tx.raw(`CASE ${cases} END`, bindings), ...horizon });
    await tx('feed_sequences').where('name', spec.name).update({ last_seq: first + ids.length - 1 });
    return ids.length;
  });
}

/** The horizon of a batch: the latest creation time of its rows and of every row placed before it (as stored). */
async function horizonAfter(tx: Knex, spec: FeedSpec, lastSeq: number, rows: ReadonlyArray<Record<string, unknown>>): Promise<string> {
  const { timeColumn, column } = spec.horizon!;
  const before = lastSeq > 0 ? await tx(spec.table).select(column).where(spec.seqColumn, lastSeq).first() : undefined;
  const times = rows.map((r) => toApiTime(r[timeColumn] as string | Date));
  if (before?.[column]) times.push(toApiTime(before[column] as string | Date));
  return fromApiTime(times.reduce((a, b) => (b > a ? b : a)));
}

/** Stamps until nothing waits (or `maxBatches` batches); answers how many rows got a place. */
/**
 * Batches of places a read of a feed gives before it reads (the stamper of each process gives the
 * rest): a row committed before the read is in it, unless more than this many batches wait.
 */
export const STAMP_BATCHES_PER_READ = 20;

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
export function startFeedStamper(db: Knex, logger: Logger, specs: readonly FeedSpec[] = FEEDS, intervalMs = 250): FeedStamper {
  let running: Promise<void> | undefined;
  const failures = repeatedFailureLog(logger, 'warn', { failing: 'feed stamping failed; it is tried again', recovered: 'feed stamping works again' });
  const timer = setInterval(() => {
    if (running) return;
    running = (async () => {
      for (const spec of specs) if (await hasUnstamped(db, spec)) await stampAll(db, spec);
    })()
      .then(() => failures.succeeded(), (err: unknown) => failures.failed(err))
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
