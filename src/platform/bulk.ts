/**
 * The shape of every bulk write (POST /api/articles/bulk, /api/sales-orders/bulk): each item is
 * checked against its create schema and written by the same service as a single write.
 *
 * What a client can rely on: the request is one transaction, and each item is undone alone when it
 * fails. An item that fails a rule (an InputError: the 422 a single write would give) leaves
 * nothing behind and is answered `failed` with its field errors, and the others go on. Anything
 * else (the database unavailable after its retries, a fault) ends the request with its error
 * status, and the transaction is rolled back: nothing of the request was written, so it can be
 * sent again as it is. A 200 therefore always lists every item, and the items it calls written
 * are committed. The transaction reads committed data statement by statement (transaction.ts), so
 * each item decides on what other requests committed while the items before it ran; what a writer
 * reads once for the whole request (`prepare`) may only spare it statements whose answer the
 * database would check again (a unique index), never decide an item alone.
 */
import type { Knex } from 'knex';
import { inTransaction } from './db/transaction.js';
import { InputError } from './errors.js';
import { schemaValidator } from './openapi/schema-validator.js';
import type { Schema, SchemaName } from './openapi/schemas.js';
import type { TenantContext } from './tenant-context.js';

type ItemResult = Schema<'BulkItemResult'>;
type Status = ItemResult['status'];

export interface BulkAnswer {
  data: ItemResult[];
  meta: Schema<'BulkCounts'>;
}

/** A tenant context whose database is the bulk request's transaction. */
export type BulkContext = TenantContext & { db: Knex.Transaction };

export interface BulkWrite<N extends SchemaName, B> {
  /** Reads once, in the request's transaction, what the writes of the items (those that passed their schema) look up. */
  prepare?: (ctx: BulkContext, items: ReadonlyArray<Schema<N>>) => Promise<B>;
  /**
   * Writes one checked item and says what it did. When it fails it must leave nothing behind: it
   * runs its writes in a savepoint (inSavepoint), or makes every check before its first write and
   * writes only statements the database undoes alone when they fail.
   */
  write: (ctx: BulkContext, item: Schema<N>, batch: B) => Promise<{ status: Exclude<Status, 'failed'>; id: number }>;
}

/** A bulk writer of items of schema `name`. */
export function bulkWriter<N extends SchemaName, B = undefined>(name: N, { prepare, write }: BulkWrite<N, B>): (ctx: TenantContext, items: readonly unknown[]) => Promise<BulkAnswer> {
  const check = schemaValidator(name);
  const one = async (ctx: BulkContext, index: number, item: unknown, batch: B): Promise<ItemResult> => {
    try {
      return { index, ...(await write(ctx, item as Schema<N>, batch)) };
    } catch (error) {
      if (error instanceof InputError) return { index, status: 'failed', errors: error.errors };
      throw error;
    }
  };
  return (ctx, items) =>
    inTransaction(
      ctx.db,
      async (tx) => {
        const txCtx = { ...ctx, db: tx };
        const invalid = items.map((item) => check(item));
        const valid = items.filter((_, index) => invalid[index] === undefined) as Array<Schema<N>>;
        const batch = (prepare ? await prepare(txCtx, valid) : undefined) as B;
        const data: ItemResult[] = [];
        const meta = { created: 0, updated: 0, unchanged: 0, failed: 0 };
        for (const [index, item] of items.entries()) {
          const errors = invalid[index];
          const result: ItemResult = errors ? { index, status: 'failed', errors } : await one(txCtx, index, item, batch);
          meta[result.status]++;
          data.push(result);
        }
        return { data, meta };
      },
      { readCommitted: true },
    );
}
