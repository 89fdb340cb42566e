/**
 * Runs work in one transaction. MySQL/MariaDB may pick it as the victim of a deadlock (or time it
 * out waiting for a lock) when it races another over the same rows, and a Galera cluster aborts
 * it when a write to the same rows commits first on another node (a certification conflict, at
 * any statement or at COMMIT); the transaction was then rolled back whole, so it is run again, up
 * to ATTEMPTS times, after a random pause that doubles each time (full jitter, from 10 ms up to
 * MAX_PAUSE_MS), so that racers on different nodes spread out instead of colliding again.
 * Given a transaction (a request whose Idempotency-Key is recorded with its work), the work joins
 * it: the owner of that transaction commits, rolls back and retries the whole.
 */
import type { Knex } from 'knex';
import { engineOf } from './database.js';
import { isLockWaitTimeout, isRetryableTransactionError, isRollbackOfEndedTransaction } from './driver-errors.js';
import { nowDb } from '../../kernel/time.js';

export interface TransactionOptions {
  /**
   * MySQL/MariaDB: each statement reads what had committed when it started (READ COMMITTED), not
   * what had committed at the transaction's first read (REPEATABLE READ, the default). For a
   * transaction that runs many writes one after another (a bulk request, a request whose
   * Idempotency-Key is recorded with its work): each write locks what it decides on, then reads
   * it, and must see what committed while the writes before it ran. SQLite writes one
   * transaction at a time and has no such choice.
   */
  readCommitted?: boolean;
}

export const ATTEMPTS = 10;
/**
 * Runs that may end waiting for a lock (1205) before the transaction gives up: each waited the
 * bound (5 s), so a record held by another transaction for long answers after about 15 s, within a
 * proxy's timeout, where ten runs took 50 s. Deadlocks, which end at once, keep ATTEMPTS.
 */
export const LOCK_WAIT_ATTEMPTS = 3;
const FIRST_PAUSE_MS = 10;
const MAX_PAUSE_MS = 500;

/** The pause before attempt `attempt + 1`: random up to 10 ms, 20 ms, 40 ms, … 500 ms. */
export function retryPauseMs(attempt: number, random = Math.random()): number {
  return random * Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1));
}

/**
 * Rows a transaction writes when its work is done, all at one instant taken right before it
 * commits, while it holds the lock of every row it changed (the ledger's movements, the times of
 * the balances they moved, the events): a change that reached a row after waiting for this
 * transaction's lock stands later, and a reader of the time of one (an event's) finds the others
 * there. A writer gets all its rows at once, to write them in as few statements as it can.
 */
export interface CommitWriter<R> {
  /** Writes `rows` in `tx`, all at `at` (a stored time). */
  write(tx: Knex.Transaction, rows: R[], at: string): Promise<void>;
}

/**
 * A writer's rows left for a transaction's end. Rows before `sealed` were left before the savepoint
 * that runs now began: a row of the savepoint is never merged into them, so that undoing the
 * savepoint (cutting the list back) undoes all it left. `latest`: the place of the last row left
 * under each merge key.
 */
interface LeftRows {
  rows: unknown[];
  sealed: number;
  latest: Map<string, number>;
}

/** How a row may be merged into the last row left under the same `key` (see writeAtCommit). */
export interface RowMerge<R> {
  key: string;
  /** One row that stands for `before` and the new row; undefined: they stay two. */
  into: (before: R) => R | undefined;
}

/** What each transaction of inTransaction writes at its end, per writer in the order of first use. */
const atCommit = new WeakMap<Knex.Transaction, Map<CommitWriter<never>, LeftRows>>();
/** The transaction of inTransaction that a savepoint of inSavepoint runs in. */
const ownerOf = new WeakMap<Knex.Transaction, Knex.Transaction>();

/**
 * Leaves `row` for `writer` to write at the end of the transaction, at its one instant. With
 * `merge`, the last row left under its key (by this writer, in this savepoint) may take the new
 * row's place: `merge.into` answers the one row that stands for both, in the earlier one's place.
 * A transaction not of inTransaction (a bare `db.transaction` of a script) has no such moment: the
 * row is written at once, at the current time.
 */
export async function writeAtCommit<R>(tx: Knex.Transaction, writer: CommitWriter<R>, row: R, merge?: RowMerge<R>): Promise<void> {
  const pending = atCommit.get(ownerOf.get(tx) ?? tx);
  if (pending === undefined) return writer.write(tx, [row], nowDb());
  let left = pending.get(writer as CommitWriter<never>);
  if (left === undefined) pending.set(writer as CommitWriter<never>, (left = { rows: [], sealed: 0, latest: new Map() }));
  const place = merge && left.latest.get(merge.key);
  const merged = place !== undefined && place >= left.sealed ? merge!.into(left.rows[place] as R) : undefined;
  if (merged !== undefined) {
    left.rows[place!] = merged;
    return;
  }
  left.rows.push(row);
  if (merge) left.latest.set(merge.key, left.rows.length - 1);
}

/** The one reading of the clock of each transaction of inTransaction that timeOfWrite answers. */
const readings = new WeakMap<Knex.Transaction, string>();

/**
 * The time a transaction stamps the rows it writes as it goes (a document's `updated_at`, its
 * history's `at`): one reading of the clock per transaction, so that the rows of one write agree.
 * Outside a transaction of inTransaction, the current time.
 */
export function timeOfWrite(tx: Knex): string {
  const owner = tx.isTransaction ? (ownerOf.get(tx as Knex.Transaction) ?? (tx as Knex.Transaction)) : undefined;
  if (owner === undefined || !atCommit.has(owner)) return nowDb();
  let time = readings.get(owner);
  if (time === undefined) readings.set(owner, (time = nowDb()));
  return time;
}

/** Runs each writer's rows at one instant, the time of the transaction's end. */
async function writeLeftRows(tx: Knex.Transaction, pending: Map<CommitWriter<never>, LeftRows>): Promise<void> {
  if (pending.size === 0) return;
  const at = nowDb();
  for (const [writer, { rows }] of pending) if (rows.length > 0) await writer.write(tx, rows as never[], at);
}

type Work<T> = (tx: Knex.Transaction) => Promise<T>;

/**
 * Runs `work` in the transaction or savepoint `begin` opens. SQLite ends a whole transaction itself
 * on a disk full or an I/O error; knex's ROLLBACK (or ROLLBACK TO) then fails, and that failure
 * would take the place of the work's own error: the work's error is thrown instead.
 */
async function withOwnError<T>(begin: (work: Work<T>) => Promise<T>, work: Work<T>): Promise<T> {
  let failure: unknown;
  try {
    return await begin(async (tx) => {
      try {
        return await work(tx);
      } catch (error) {
        failure = error;
        throw error;
      }
    });
  } catch (thrown) {
    throw failure !== undefined && isRollbackOfEndedTransaction(thrown) ? failure : thrown;
  }
}

export async function inTransaction<T>(db: Knex, work: Work<T>, options: TransactionOptions = {}): Promise<T> {
  if (db.isTransaction) return work(db as Knex.Transaction);
  const config: Knex.TransactionConfig | undefined = options.readCommitted && engineOf(db) === 'mysql' ? { isolationLevel: 'read committed' } : undefined;
  const run = async (tx: Knex.Transaction): Promise<T> => {
    const pending = new Map<CommitWriter<never>, LeftRows>();
    atCommit.set(tx, pending);
    const result = await work(tx);
    await writeLeftRows(tx, pending);
    return result;
  };
  let lockWaits = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await withOwnError((own) => db.transaction(own, config), run);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      if (isLockWaitTimeout(error) && ++lockWaits >= LOCK_WAIT_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt)));
    }
  }
}

/**
 * Runs `work` in a savepoint of the transaction `tx`: when it throws, what it wrote is undone and
 * the transaction goes on (a deadlock, which rolls back the whole transaction on MySQL/MariaDB,
 * still reaches the transaction's owner, which runs it again). What the savepoint left to write at
 * the end (writeAtCommit) is the transaction's; when it throws, that goes too.
 */
export async function inSavepoint<T>(tx: Knex.Transaction, work: (savepoint: Knex.Transaction) => Promise<T>): Promise<T> {
  const owner = ownerOf.get(tx) ?? tx;
  const pending = atCommit.get(owner);
  const before = pending && [...pending].map(([writer, left]) => [writer, left.rows.length, left.sealed] as const);
  for (const left of pending?.values() ?? []) left.sealed = left.rows.length;
  try {
    return await withOwnError(
      (own) => tx.transaction(own),
      (savepoint) => {
        ownerOf.set(savepoint, owner);
        return work(savepoint);
      },
    );
  } catch (error) {
    if (pending && before) {
      const kept = new Map(before.map(([writer, length]) => [writer, length]));
      for (const [writer, left] of pending) {
        left.rows.length = kept.get(writer) ?? 0;
        for (const [key, place] of left.latest) if (place >= left.rows.length) left.latest.delete(key);
      }
    }
    throw error;
  } finally {
    // Back to what the enclosing transaction or savepoint may merge into.
    if (pending && before) {
      const sealed = new Map(before.map(([writer, , was]) => [writer, was]));
      for (const [writer, left] of pending) left.sealed = Math.min(left.rows.length, sealed.get(writer) ?? left.sealed);
    }
  }
}
