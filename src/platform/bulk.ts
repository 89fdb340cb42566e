/**
 * The shape of every bulk write (POST /api/articles/bulk, /api/sales-orders/bulk): each item is
 * checked against its create schema and written by the same service as a single write, on its
 * own. A failed item changes nothing and does not stop the others: outside a transaction each
 * item makes its service's own transactions; inside an Idempotency-Key's transaction each item is
 * a savepoint. Only a field error (InputError) fails an item; anything else fails the request.
 */
import type { Knex } from 'knex';
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

/** Runs one item's writes so that a failure undoes them alone. */
async function asOneItem<T>(ctx: TenantContext, work: (itemCtx: TenantContext) => Promise<T>): Promise<T> {
  if (!ctx.db.isTransaction) return work(ctx);
  return (ctx.db as Knex.Transaction).transaction((savepoint) => work({ ...ctx, db: savepoint }));
}

/** A bulk writer of items of schema `name`: `write` does one checked item and says what it did. */
export function bulkWriter<N extends SchemaName>(
  name: N,
  write: (ctx: TenantContext, item: Schema<N>) => Promise<{ status: Exclude<Status, 'failed'>; id: number }>,
): (ctx: TenantContext, items: readonly unknown[]) => Promise<BulkAnswer> {
  const check = schemaValidator(name);
  const one = async (ctx: TenantContext, index: number, item: unknown): Promise<ItemResult> => {
    const invalid = check(item);
    if (invalid) return { index, status: 'failed', errors: invalid };
    try {
      return { index, ...(await asOneItem(ctx, (itemCtx) => write(itemCtx, item as Schema<N>))) };
    } catch (error) {
      if (error instanceof InputError) return { index, status: 'failed', errors: error.errors };
      throw error;
    }
  };
  return async (ctx, items) => {
    const data: ItemResult[] = [];
    const meta = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    for (const [index, item] of items.entries()) {
      const result = await one(ctx, index, item);
      meta[result.status]++;
      data.push(result);
    }
    return { data, meta };
  };
}
