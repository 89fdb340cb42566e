/**
 * The shape of every bulk write (POST /api/articles/bulk, /api/sales-orders/bulk): each item is
 * checked against its create schema and written by the same service as a single write.
 *
 * What a client can rely on: the request is one transaction, and each item a savepoint in it.
 * An item that fails a rule (an InputError: the 422 a single write would give) is undone alone
 * and answered `failed` with its field errors, and the others go on. Anything else (the database
 * unavailable after its retries, a fault) ends the request with its error status, and the
 * transaction is rolled back: nothing of the request was written, so it can be sent again as it
 * is. A 200 therefore always lists every item, and the items it calls written are committed.
 * The transaction reads committed data statement by statement (transaction.ts), so each item
 * decides on what other requests committed while the items before it ran.
 */
import type { Knex } from 'knex';
import { inSavepoint, inTransaction } from './db/transaction.js';
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

/** A bulk writer of items of schema `name`: `write` does one checked item and says what it did. */
export function bulkWriter<N extends SchemaName>(
  name: N,
  write: (ctx: TenantContext, item: Schema<N>) => Promise<{ status: Exclude<Status, 'failed'>; id: number }>,
): (ctx: TenantContext, items: readonly unknown[]) => Promise<BulkAnswer> {
  const check = schemaValidator(name);
  const one = async (ctx: TenantContext & { db: Knex.Transaction }, index: number, item: unknown): Promise<ItemResult> => {
    const invalid = check(item);
    if (invalid) return { index, status: 'failed', errors: invalid };
    try {
      return { index, ...(await inSavepoint(ctx.db, (savepoint) => write({ ...ctx, db: savepoint }, item as Schema<N>))) };
    } catch (error) {
      if (error instanceof InputError) return { index, status: 'failed', errors: error.errors };
      throw error;
    }
  };
  return (ctx, items) =>
    inTransaction(
      ctx.db,
      async (tx) => {
        const data: ItemResult[] = [];
        const meta = { created: 0, updated: 0, unchanged: 0, failed: 0 };
        for (const [index, item] of items.entries()) {
          const result = await one({ ...ctx, db: tx }, index, item);
          meta[result.status]++;
          data.push(result);
        }
        return { data, meta };
      },
      { readCommitted: true },
    );
}
