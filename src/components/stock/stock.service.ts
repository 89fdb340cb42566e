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
import { inputTime } from '../../platform/input-time.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import { baseOf, deliverTracked, isTracked, lockKey, reallocate, reserveTracked, type LotTake } from './stock.allocation.js';
import { announceChange, recordChange, recordMovement, type MovementRecord, type StockDocumentRef } from './stock.changes.js';
import * as repository from './stock.repository.js';
import type { StockFilters, StockKey, StockLevel } from './stock.repository.js';
import { pinExpiredOn } from './stock.fefo.js';
import { balanceName, shortBy, type SharedNeed } from './stock.messages.js';
import { lotExpiryDates, type BaseKey } from './stock.reservations.repository.js';

export type { StockKey, StockLevel, LotTake, SharedNeed };
export type { MovementCause, StockChangeCause, StockDocumentRef } from './stock.changes.js';
export { countStock, moveStock, type StockCount, type StockMove, type StockMoveProblem } from './stock.inventory.js';
export { reallocateExpiredLots } from './stock.allocation.js';
export { inLockOrder } from './stock.lock-order.js';

export interface StockChange extends StockKey, MovementRecord {
  /** The article as the message of a shortfall names it. */
  articleCode: string;
  /** The field a shortfall is reported on (`items.0.quantity_um3pl`). */
  field: string;
}

/** The message of a lowering short of stock: `onHand` in units, as the balance reads it. */
function shortfall(change: StockChange, onHand: number, shared?: SharedNeed): string {
  return `Not enough ${balanceName(change)}: ${shortBy(Math.round(onHand * 1000), -change.delta, 'on hand', shared)}.`;
}

function assertDelta(delta: number): void {
  if (!Number.isSafeInteger(delta) || delta === 0) throw new Error(`A stock change needs a non-zero whole delta (got ${delta})`);
}

const LIMIT = MAX_BALANCE * 1000;

function aboveLimit(what: 'on hand' | 'reserved', key: StockKey & { articleCode: string }, delta: number): string {
  const verb = what === 'on hand' ? 'Adding' : 'Reserving';
  return `${verb} ${toQuantity(delta)} would take the ${balanceName(key)} above the most a stock balance holds ${what}, ${MAX_BALANCE}.`;
}

/**
 * Raises or lowers stock on hand; a lowering that would go below zero, or a raise above the most
 * a balance holds (MAX_BALANCE), is a 422 on `change.field` (the caller's transaction rolls back).
 */
export async function applyStockChange(tx: Knex.Transaction, change: StockChange): Promise<StockLevel> {
  assertDelta(change.delta);
  const tracked = await isTracked(tx, change);
  if (tracked) await lockKey(tx, change);
  if (change.delta > 0) {
    if (!(await repository.raiseBalance(tx, change, change.delta, LIMIT))) throw InputError.field(change.field, aboveLimit('on hand', change, change.delta));
  } else if (!(await repository.lowerBalance(tx, change, -change.delta))) {
    throw InputError.field(change.field, shortfall(change, (await repository.findBalance(tx, change, { current: true }))?.quantity ?? 0));
  }
  if (!tracked) return recordChange(tx, change, change);
  const id = await recordMovement(tx, change, change);
  await reallocate(tx, baseOf(change), change.document, { moved: { delta: new Map([[id, change.delta]]), cause: change.cause } });
  return (await repository.findBalance(tx, change))!;
}

/**
 * Delivers `-change.delta` thousandths: takes them off the stock on hand and out of what the order
 * reserved, in one conditional statement (for an article that tracks lots or expiry dates, from its
 * rows earliest expiry first, stock.allocation.ts). Answers the lots taken (none for an article
 * without), or the shortfall message instead of throwing, so a delivery can name every short line
 * before it gives up. `shared`: the other lines of the document on the same balance, so that the
 * message tells what the balance had against what they all need.
 */
export async function deliverStock(tx: Knex.Transaction, change: StockChange, shared?: SharedNeed): Promise<{ ok: true; lots: LotTake[] } | { ok: false; message: string }> {
  assertDelta(change.delta);
  if (change.delta > 0) throw new Error('A delivery lowers stock');
  if (await isTracked(tx, change)) return deliverTracked(tx, change, shared);
  if (!(await repository.deliverFromBalance(tx, change, -change.delta))) {
    return { ok: false, message: shortfall(change, (await repository.findBalance(tx, change, { current: true }))?.quantity ?? 0, shared) };
  }
  await recordChange(tx, change, change);
  return { ok: true, lots: [] };
}

/**
 * Reserves (positive) or releases (negative) `delta` thousandths for an open sales order
 * (`document`), pinned to `key.lot` for an article that tracks lots ('' or absent: earliest expiry
 * first); a reservation above the most a balance holds (MAX_BALANCE) is a 422 on `field`
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
  if (await isTracked(tx, key)) {
    if (!(await reserveTracked(tx, key, delta, document))) throw InputError.field(field, aboveLimit('reserved', key, delta));
    return;
  }
  if (!(await repository.changeReserved(tx, key, delta, LIMIT))) {
    if (delta > 0) throw InputError.field(field, aboveLimit('reserved', key, delta));
    throw new Error(`Releasing ${-delta} that is not reserved`);
  }
  await announceChange(tx, key, { delta: 0, cause: 'reservation', document });
}

/** The article's balances that are not zero, on hand or reserved, in thousandths (the unit rules of articles read them). */
export function nonZeroBalancesOf(tx: Knex, articleId: number): Promise<Array<{ quantity: number; reserved: number }>> {
  return repository.nonZeroBalancesOf(tx, articleId);
}

/** The filters of a stock read as a client writes them: `updated_since` any time the API takes (inputTime). */
export type StockQuery = Omit<StockFilters, 'updated_since'> & { updated_since?: string };

export function listStock(ctx: TenantContext, filters: StockQuery, page: PageRequest): Promise<Paged<StockLevel>> {
  const since = inputTime(filters.updated_since);
  return repository.listStock(ctx.db, ctx.scope, { ...filters, updated_since: since }, page);
}

/** The balances with ids above `after` that pass the filters of GET /api/stock, by id (GraphQL's `stock`). */
export function stockAfter(ctx: TenantContext, filters: StockQuery, options: { after?: number; limit: number }): Promise<StockLevel[]> {
  const since = inputTime(filters.updated_since, 'updated_since');
  return repository.stockAfter(ctx.db, ctx.scope, { ...filters, updated_since: since }, options);
}

/** A sales order line pinned to a lot that has expired where the order takes its stock. */
export interface ExpiredPin {
  index: number;
  lot: string;
  articleCode: string;
  expiredOn: string;
}

/**
 * The lines of `lines` pinned to a lot whose every row in the order's warehouse and stock type has
 * expired: such a line could never be reserved nor shipped. A lot with no row there yet (still to
 * be received) or with a row not expired is fine.
 */
export async function expiredPins(
  tx: Knex,
  place: Omit<BaseKey, 'articleId'>,
  lines: ReadonlyArray<{ index: number; articleId: number; articleCode: string; lot: string }>,
): Promise<ExpiredPin[]> {
  const pinned = lines.filter((line) => line.lot !== '');
  const dates = await lotExpiryDates(tx, place, pinned);
  const today = repository.todayUtc();
  return pinned.flatMap((line) => {
    const expiredOn = pinExpiredOn(dates.get(`${line.articleId}:${line.lot}`) ?? [], today);
    return expiredOn === undefined ? [] : [{ index: line.index, lot: line.lot, articleCode: line.articleCode, expiredOn }];
  });
}
