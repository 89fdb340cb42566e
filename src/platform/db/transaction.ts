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
import { isRetryableTransactionError } from './driver-errors.js';

export const ATTEMPTS = 10;
const FIRST_PAUSE_MS = 10;
const MAX_PAUSE_MS = 500;

/** The pause before attempt `attempt + 1`: random up to 10 ms, 20 ms, 40 ms, … 500 ms. */
export function retryPauseMs(attempt: number, random = Math.random()): number {
  return random * Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1));
}

export async function inTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Knex.Transaction);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt)));
    }
  }
}
