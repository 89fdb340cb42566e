/**
 * The one owner of stock changes. A change moves a balance and writes the movement that explains
 * it, in the caller's transaction, and records `stock.changed`. A decrease is a single conditional
 * statement that never takes a balance below zero: it changes one row, or the change is refused
 * with a 422 naming the article and the shortfall. A balance always equals the sum of its movements.
 * Open sales orders reserve stock (`reserved`); a delivery takes it on hand and out of reserve.
 */
import type { Knex } from 'knex';
import type { PageRequest } from '../../kernel/paging.js';
import { MAX_BALANCE, toQuantity } from '../../kernel/quantity.js';
import type { Paged } from '../../platform/db/queries.js';
import { InputError } from '../../platform/errors.js';
import { recordEvent } from '../../platform/outbox.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import * as repository from './stock.repository.js';
import type { StockFilters, StockKey, StockLevel } from './stock.repository.js';

export type { StockKey, StockLevel };
/** What changed a balance (`stock.changed`'s `cause`); every cause but `reservation` is also a movement's. */
export type StockChangeCause = Schema<'StockChangeCause'>;
export type MovementCause = Exclude<StockChangeCause, 'reservation'>;

/** The document a change belongs to, as the ledger keeps it (`sales_order`, 42). */
export interface StockDocumentRef {
  kind: string;
  id: number;
}

export interface StockChange extends StockKey {
  /** Thousandths; positive raises, negative lowers. */
  delta: number;
  cause: MovementCause;
  document: StockDocumentRef;
  userId: number | null;
  /** The article as the message of a shortfall names it. */
  articleCode: string;
  /** The field a shortfall is reported on (`items.0.quantity_um3pl`). */
  field: string;
}

/**
 * The order in which a transaction that changes several balances must change them: by article,
 * then stock type. Every writer of stock takes its balance rows in this one order, so two of them
 * never each hold a row the other waits for (on MariaDB, a deadlock that costs both a retry).
 * Each line keeps the index it had, for the field its errors are reported on.
 */
export function inLockOrder<T>(lines: readonly T[], keyOf: (line: T) => { articleId: number; stockType?: string }): Array<{ line: T; index: number }> {
  const keyed = lines.map((line, index) => ({ line, index, key: keyOf(line) }));
  keyed.sort((a, b) => a.key.articleId - b.key.articleId || (a.key.stockType ?? '').localeCompare(b.key.stockType ?? '') || a.index - b.index);
  return keyed.map(({ line, index }) => ({ line, index }));
}

function shortfall(change: StockChange, onHand: number): string {
  const needed = -change.delta;
  return `Not enough ${change.stockType} stock of article ${change.articleCode} in warehouse ${change.warehouseId}: ${onHand} on hand, ${toQuantity(needed)} needed, short by ${toQuantity(needed - Math.round(onHand * 1000))}.`;
}

async function recordMovement(tx: Knex.Transaction, change: StockChange): Promise<StockLevel> {
  await repository.insertMovement(tx, change, {
    delta: change.delta,
    cause: change.cause,
    documentKind: change.document.kind,
    documentId: change.document.id,
    userId: change.userId,
  });
  return changed(tx, change, { delta: change.delta, cause: change.cause, document: change.document });
}

/**
 * The balance after a change, recorded as `stock.changed`: the stock row with what changed it,
 * `delta` (of the on-hand quantity, thousandths), `cause` and `document`.
 */
async function changed(
  tx: Knex.Transaction,
  key: StockKey,
  what: { delta: number; cause: StockChangeCause; document: StockDocumentRef | null },
): Promise<StockLevel> {
  const level = (await repository.findBalance(tx, key))!;
  const data: Schema<'StockChange'> = {
    ...level,
    delta: toQuantity(what.delta),
    cause: what.cause,
    document: what.document && { type: what.document.kind, id: what.document.id },
  };
  await recordEvent(tx, { companyId: key.clientId, type: 'stock.changed', data });
  return level;
}

function assertDelta(delta: number): void {
  if (!Number.isSafeInteger(delta) || delta === 0) throw new Error(`A stock change needs a non-zero whole delta (got ${delta})`);
}

const LIMIT = MAX_BALANCE * 1000;

function aboveLimit(what: 'on hand' | 'reserved', key: StockKey & { articleCode: string }, delta: number): string {
  const verb = what === 'on hand' ? 'Adding' : 'Reserving';
  return `${verb} ${toQuantity(delta)} would take the ${key.stockType} stock of article ${key.articleCode} in warehouse ${key.warehouseId} above the most a stock balance holds ${what}, ${MAX_BALANCE}.`;
}

/**
 * Raises or lowers stock on hand; a lowering that would go below zero, or a raise above the most
 * a balance holds (MAX_BALANCE), is a 422 on `change.field` (the caller's transaction rolls back).
 */
export async function applyStockChange(tx: Knex.Transaction, change: StockChange): Promise<StockLevel> {
  assertDelta(change.delta);
  if (change.delta > 0) {
    if (!(await repository.raiseBalance(tx, change, change.delta, LIMIT))) throw InputError.field(change.field, aboveLimit('on hand', change, change.delta));
  } else if (!(await repository.lowerBalance(tx, change, -change.delta))) {
    throw InputError.field(change.field, shortfall(change, (await repository.findBalance(tx, change, { current: true }))?.quantity ?? 0));
  }
  return recordMovement(tx, change);
}

/**
 * Delivers `-change.delta` thousandths: takes them off the stock on hand and out of what the order
 * reserved, in one conditional statement. Answers the shortfall message instead of throwing, so
 * a delivery can name every short line before it gives up.
 */
export async function deliverStock(tx: Knex.Transaction, change: StockChange): Promise<{ ok: true } | { ok: false; message: string }> {
  assertDelta(change.delta);
  if (change.delta > 0) throw new Error('A delivery lowers stock');
  if (!(await repository.deliverFromBalance(tx, change, -change.delta))) {
    return { ok: false, message: shortfall(change, (await repository.findBalance(tx, change, { current: true }))?.quantity ?? 0) };
  }
  await recordMovement(tx, change);
  return { ok: true };
}

/**
 * Reserves (positive) or releases (negative) `delta` thousandths for an open sales order
 * (`document`); a reservation above the most a balance holds (MAX_BALANCE) is a 422 on `field`
 * (the caller's transaction rolls back).
 */
export async function reserveStock(
  tx: Knex.Transaction,
  key: StockKey & { articleCode: string },
  delta: number,
  document: StockDocumentRef,
  field: string,
): Promise<void> {
  assertDelta(delta);
  if (!(await repository.changeReserved(tx, key, delta, LIMIT))) {
    if (delta > 0) throw InputError.field(field, aboveLimit('reserved', key, delta));
    throw new Error(`Releasing ${-delta} that is not reserved`);
  }
  await changed(tx, key, { delta: 0, cause: 'reservation', document });
}

/** The article's balances that are not zero, on hand or reserved, in thousandths (the unit rules of articles read them). */
export function nonZeroBalancesOf(tx: Knex, articleId: number): Promise<Array<{ quantity: number; reserved: number }>> {
  return repository.nonZeroBalancesOf(tx, articleId);
}

export function listStock(ctx: TenantContext, filters: Omit<StockFilters, 'updated_since'> & { updated_since?: string }, page: PageRequest): Promise<Paged<StockLevel>> {
  const since = inputTime(filters.updated_since);
  return repository.listStock(ctx.db, ctx.scope, { ...filters, updated_since: since }, page);
}

export function stockAfter(ctx: TenantContext, options: { after?: number; articleId?: number; warehouseId?: number; limit: number }): Promise<StockLevel[]> {
  return repository.stockAfter(ctx.db, ctx.scope, options);
}
