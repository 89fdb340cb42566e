/**
 * Runs work in one transaction. MySQL/MariaDB may pick it as the victim of a deadlock (or time it
 * out waiting for a lock) when it races another over the same rows; the transaction was then
 * rolled back whole, so it is run again, a few times, after a short random pause.
 * Given a transaction (a request whose Idempotency-Key is recorded with its work), the work joins
 * it: the owner of that transaction commits, rolls back and retries the whole.
 */
import type { Knex } from 'knex';
import { isRetryableTransactionError } from './driver-errors.js';

const ATTEMPTS = 4;

export async function inTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Knex.Transaction);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
