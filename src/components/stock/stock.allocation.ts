/**
 * Stock of articles that track lots or expiry dates: every change of such a key (a balance raised
 * or lowered, a reservation made or released, a delivery) locks all the key's balance rows first,
 * makes its change, and spreads the key's reservations over its rows again (stock.fefo.ts), so each
 * row's `reserved` is always the FEFO allocation of what open sales orders reserve. A delivery takes
 * rows earliest expiry first, each by one conditional statement, and answers the lots it took.
 */
import type { Knex } from 'knex';
import { MAX_BALANCE } from '../../kernel/quantity.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { announceChange, insertMovement, type MovementRecord, type StockChangeCause, type StockDocumentRef } from './stock.changes.js';
import { allocate, shipmentTakes, type Demand } from './stock.fefo.js';
import { shortBy, type SharedNeed } from './stock.messages.js';
import * as repository from './stock.repository.js';
import { todayUtc, type StockKey } from './stock.repository.js';
import * as reservations from './stock.reservations.repository.js';
import type { BaseKey, KeyRow } from './stock.reservations.repository.js';

const LIMIT = MAX_BALANCE * 1000;

/** What a delivery took of one lot and expiry date ('' for none), in thousandths. */
export interface LotTake {
  lot: string;
  expiryDate: string;
  quantity: number;
}

export function baseOf(key: StockKey): BaseKey {
  return { clientId: key.clientId, warehouseId: key.warehouseId, articleId: key.articleId, stockType: key.stockType };
}

/** Whether the key's article keeps stock per lot or expiry date (as the caller said, else read from the article). */
export async function isTracked(tx: Knex, key: StockKey): Promise<boolean> {
  return key.tracked ?? reservations.tracksLots(tx, key.articleId);
}

/** Locks every balance row of the key for the rest of the transaction (the first step of every change of a tracked key). */
export function lockKey(tx: Knex, key: StockKey): Promise<KeyRow[]> {
  return reservations.lockKeyRows(tx, baseOf(key));
}

/** What a change already did to rows of the key (their `stock.changed` is then recorded once, with the allocation). */
export interface Moved {
  /** Thousandths on hand, per row id. */
  delta: Map<number, number>;
  cause: StockChangeCause;
}

/**
 * Spreads the key's reservations over its rows again; each row whose `reserved` changed records
 * `stock.changed` (cause `reservation`, the document that made the change), and so does each row
 * in `moved` (with its delta and cause), once. What no row can hold is reserved on the key's row
 * without lot and expiry date (created at zero when needed). `known`: the key's rows (locked) and
 * demand as the caller left them, when it has just read and changed them.
 */
export async function reallocate(
  tx: Knex.Transaction,
  base: BaseKey,
  document: StockDocumentRef | null,
  known?: { rows?: KeyRow[]; demands?: Demand[]; moved?: Moved },
): Promise<void> {
  let rows = known?.rows ?? (await reservations.lockKeyRows(tx, base));
  const allocation = allocate(rows, known?.demands ?? (await reservations.demandsOf(tx, base)), todayUtc());
  const isBackorder = (row: KeyRow) => row.lot === '' && row.expiryDate === '';
  if (allocation.unallocated > 0 && !rows.some(isBackorder)) {
    await repository.ensureBalance(tx, base);
    rows = await reservations.lockKeyRows(tx, base);
  }
  for (const row of rows) {
    const target = (allocation.reserved.get(row.id) ?? 0) + (isBackorder(row) ? allocation.unallocated : 0);
    const delta = known?.moved?.delta.get(row.id);
    if (target === row.reserved && delta === undefined) continue;
    if (target !== row.reserved) await reservations.setReserved(tx, row.id, target);
    const what = delta === undefined ? { delta: 0, cause: 'reservation' as const, document } : { delta, cause: known!.moved!.cause, document };
    await announceChange(tx, { ...base, lot: row.lot, expiryDate: row.expiryDate }, what);
  }
}

/**
 * The scheduled job that keeps allocations right as days pass: a lot that expired since its key
 * last changed still holds what was allocated to it; once a day (and at start) each such key is
 * spread again, its reservation moving to lots that have not expired (or to the backorder row),
 * with `stock.changed` (cause `reservation`, no document) for each row that changed. Then every
 * other row whose lot expired with stock on hand, and that nothing changed since, is given the
 * time as `updated_at`: its `available` fell to 0, and a client that follows `updated_since` reads
 * it again.
 */
export function reallocateExpiredLots(): { name: string; run(db: Knex): Promise<void> } {
  let doneFor = '';
  return {
    name: 'reallocate-expired-lots',
    run: async (db) => {
      const today = todayUtc();
      if (today === doneFor) return;
      for (;;) {
        const keys = await reservations.keysWithExpiredReservations(db, today, 100);
        for (const key of keys) await inTransaction(db, (tx) => reallocate(tx, key, null));
        if (keys.length < 100) break;
      }
      // Through the table once, by id; each batch in a transaction of its own, run again on a deadlock.
      for (let afterId = 0; ; ) {
        const ids = await reservations.expiredRowsUnstamped(db, today, afterId, 500);
        if (ids.length > 0) await inTransaction(db, (tx) => reservations.stampExpiredRows(tx, today, ids));
        if (ids.length < 500) break;
        afterId = ids[ids.length - 1]!;
      }
      doneFor = today;
    },
  };
}

/**
 * Reserves (positive) or releases (negative) `delta` thousandths of a tracked key for an open line,
 * pinned to `key.lot` ('' for none). False when a reservation would go above the most a balance
 * holds (the caller must roll back); a release of more than is reserved throws.
 */
export async function reserveTracked(tx: Knex.Transaction, key: StockKey, delta: number, document: StockDocumentRef): Promise<boolean> {
  const base = baseOf(key);
  await reservations.lockKeyRows(tx, base);
  if (!(await reservations.changeDemand(tx, base, key.lot ?? '', delta, LIMIT))) {
    if (delta > 0) return false;
    throw new Error(`Releasing ${-delta} that is not reserved`);
  }
  await reallocate(tx, base, document);
  return true;
}

/**
 * Lowers one row of a tracked key by `delta` only if that much of it is available: on hand, and
 * not needed by the reservations (after it, the allocation leaves no more unallocated than before:
 * what the row held for open orders can move to other rows). An expired row is never needed.
 */
export async function lowerAvailableTracked(tx: Knex.Transaction, key: StockKey, delta: number): Promise<boolean> {
  const base = baseOf(key);
  const rows = await reservations.lockKeyRows(tx, base);
  const lot = key.lot ?? '';
  const expiryDate = key.expiryDate ?? '';
  const row = rows.find((r) => r.lot === lot && r.expiryDate === expiryDate);
  if (!row || row.quantity < delta) return false;
  const demands = await reservations.demandsOf(tx, base);
  const today = todayUtc();
  const before = allocate(rows, demands, today).unallocated;
  const after = allocate(rows.map((r) => (r === row ? { ...r, quantity: r.quantity - delta } : r)), demands, today).unallocated;
  if (after > before) return false;
  return repository.lowerBalance(tx, key, delta);
}

function shortOfLots(change: StockKey & { articleCode: string }, needed: number, available: number, shared?: SharedNeed): string {
  const which = change.lot ? `lot ${change.lot} of article ${change.articleCode}` : `article ${change.articleCode}`;
  return (
    `Not enough ${change.stockType} stock of ${which} in warehouse ${change.warehouseId} that has not expired: ` +
    `${shortBy(available, needed, 'can be shipped (earliest expiry first; lots pinned by other lines left out)', shared)}.`
  );
}

/**
 * Delivers `-change.delta` thousandths of a tracked key for a line (pinned to `change.lot`, '' for
 * none): takes rows earliest expiry first, never an expired one, each by a conditional statement,
 * with its movement; lowers the line's reservation by as much; allocates again from the rows and
 * demand as this change left them (read once, under lock), recording one `stock.changed` per row
 * it touched. Answers the lots taken, or the shortfall message (nothing taken; told with `shared`,
 * the document's other lines of this key, as deliverStock says).
 */
export async function deliverTracked(
  tx: Knex.Transaction,
  change: StockKey & MovementRecord & { articleCode: string },
  shared?: SharedNeed,
): Promise<{ ok: true; lots: LotTake[] } | { ok: false; message: string }> {
  const base = baseOf(change);
  const pin = change.lot ?? '';
  const needed = -change.delta;
  const rows = await reservations.lockKeyRows(tx, base);
  const demands = await reservations.demandsOf(tx, base);
  const plan = shipmentTakes(rows, demands, { lot: pin, quantity: needed }, todayUtc());
  if ('short' in plan) return { ok: false, message: shortOfLots(change, needed, plan.available, shared) };
  if (!(await reservations.changeDemand(tx, base, pin, change.delta, LIMIT))) throw new Error('Delivering more than the line reserves');
  const lots: LotTake[] = [];
  const moved: Moved = { delta: new Map(), cause: change.cause };
  const movement = { cause: change.cause, document: change.document, userId: change.userId };
  for (const take of plan.takes) {
    const key = { ...base, lot: take.row.lot, expiryDate: take.row.expiryDate };
    if (!(await repository.lowerBalance(tx, key, take.quantity))) throw new Error('A locked balance changed under its lock');
    const row = rows.find((r) => r.id === take.row.id)!;
    row.quantity -= take.quantity;
    await insertMovement(tx, key, { ...movement, delta: -take.quantity }, row.quantity);
    moved.delta.set(row.id, -take.quantity);
    lots.push({ lot: take.row.lot, expiryDate: take.row.expiryDate, quantity: take.quantity });
  }
  const left = demands.map((d) => (d.lot === pin ? { ...d, quantity: d.quantity - needed } : d));
  await reallocate(tx, base, change.document, { rows, demands: left, moved });
  return { ok: true, lots };
}
