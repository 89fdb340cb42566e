/**
 * The one owner of stock changes. A change moves a balance and writes the movement that explains
 * it, in the caller's transaction, and records `stock.changed`. A decrease is a single conditional
 * statement that never takes a balance below zero: it changes one row, or the change is refused
 * with a 422 naming the article and the shortfall. A balance always equals the sum of its movements.
 */
import type { Knex } from 'knex';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import type { Paged } from '../../platform/db/queries.js';
import { InputError } from '../../platform/errors.js';
import { recordEvent } from '../../platform/outbox.js';
import { inputTime } from '../../platform/input-time.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import * as repository from './stock.repository.js';
import type { StockFilters, StockKey, StockLevel } from './stock.repository.js';

export type { StockKey, StockLevel };
export type MovementCause = 'reception' | 'reception_correction' | 'delivery' | 'return' | 'adjustment';

export interface StockChange extends StockKey {
  /** Thousandths; positive raises, negative lowers. */
  delta: number;
  cause: MovementCause;
  document: { kind: string; id: number };
  userId: number | null;
  /** The article as the message of a shortfall names it. */
  articleCode: string;
  /** The field a shortfall is reported on (`items.0.quantity_um3pl`). */
  field: string;
}

export async function applyStockChange(tx: Knex.Transaction, change: StockChange): Promise<StockLevel> {
  if (!Number.isSafeInteger(change.delta) || change.delta === 0) throw new Error(`A stock change needs a non-zero whole delta (got ${change.delta})`);
  if (change.delta > 0) {
    await repository.raiseBalance(tx, change, change.delta);
  } else if (!(await repository.lowerBalance(tx, change, -change.delta))) {
    const onHand = (await repository.findBalance(tx, change))?.quantity ?? 0;
    const needed = toQuantity(-change.delta);
    throw InputError.field(
      change.field,
      `Not enough ${change.stockType} stock of article ${change.articleCode} in warehouse ${change.warehouseId}: ${onHand} on hand, ${needed} needed, short by ${toQuantity(-change.delta - Math.round(onHand * 1000))}.`,
    );
  }
  await repository.insertMovement(tx, change, {
    delta: change.delta,
    cause: change.cause,
    documentKind: change.document.kind,
    documentId: change.document.id,
    userId: change.userId,
  });
  const level = (await repository.findBalance(tx, change))!;
  await recordEvent(tx, { companyId: change.clientId, type: 'stock.changed', data: level });
  return level;
}

export function listStock(ctx: TenantContext, filters: Omit<StockFilters, 'updated_since'> & { updated_since?: string }, page: PageRequest): Promise<Paged<StockLevel>> {
  const since = inputTime(filters.updated_since);
  return repository.listStock(ctx.db, ctx.scope, { ...filters, updated_since: since }, page);
}

export function stockAfter(ctx: TenantContext, options: { after?: number; articleId?: number; warehouseId?: number; limit: number }): Promise<StockLevel[]> {
  return repository.stockAfter(ctx.db, ctx.scope, options);
}
