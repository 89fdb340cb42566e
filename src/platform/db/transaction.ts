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
import { isRetryableTransactionError } from './driver-errors.js';

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
const FIRST_PAUSE_MS = 10;
const MAX_PAUSE_MS = 500;

/** The pause before attempt `attempt + 1`: random up to 10 ms, 20 ms, 40 ms, … 500 ms. */
export function retryPauseMs(attempt: number, random = Math.random()): number {
  return random * Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1));
}

/** The work each transaction of inTransaction runs after its own, right before it commits. */
const beforeCommit = new WeakMap<Knex.Transaction, Array<() => Promise<void>>>();

/**
 * Runs `hook` in `tx` once its work is done, right before it commits (after every statement the
 * work made, while it still holds every lock it took), and answers true. A transaction not of
 * inTransaction (a savepoint, a bare `db.transaction` of a script) has no such moment: false, and
 * the hook never runs.
 */
export function onBeforeCommit(tx: Knex.Transaction, hook: () => Promise<void>): boolean {
  const hooks = beforeCommit.get(tx);
  hooks?.push(hook);
  return hooks !== undefined;
}

export async function inTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (db.isTransaction) return work(db as Knex.Transaction);
  const config: Knex.TransactionConfig | undefined = options.readCommitted && engineOf(db) === 'mysql' ? { isolationLevel: 'read committed' } : undefined;
  const run = async (tx: Knex.Transaction): Promise<T> => {
    const hooks: Array<() => Promise<void>> = [];
    beforeCommit.set(tx, hooks);
    const result = await work(tx);
    for (const hook of hooks) await hook();
    return result;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(run, config);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt)));
    }
  }
}

/**
 * Runs `work` in a savepoint of the transaction `tx`: when it throws, what it wrote is undone and
 * the transaction goes on (a deadlock, which rolls back the whole transaction on MySQL/MariaDB,
 * still reaches the transaction's owner, which runs it again).
 */
export function inSavepoint<T>(tx: Knex.Transaction, work: (savepoint: Knex.Transaction) => Promise<T>): Promise<T> {
  return tx.transaction(work);
}
