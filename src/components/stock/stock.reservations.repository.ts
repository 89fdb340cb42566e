/**
 * The reservations of articles that track lots or expiry dates: what open sales orders reserve per
 * stock key without lot (`stock_reservations`, one row per pinned lot, '' for lines without a
 * pin) and the balance rows of such a key, read under lock for the allocation. SQL only.
 */
import type { Knex } from 'knex';
import { nowDb } from '../../kernel/time.js';
import { engineOf } from '../../platform/db/database.js';
import { byUniqueKey } from '../../platform/db/queries.js';
import type { Demand } from './stock.fefo.js';
import type { StockKey } from './stock.repository.js';

/** A stock key without lot and expiry date: the balances of one article in one warehouse and stock type. */
export type BaseKey = Pick<StockKey, 'clientId' | 'warehouseId' | 'articleId' | 'stockType'>;

function baseColumns(key: BaseKey): Record<string, unknown> {
  return { company_id: key.clientId, warehouse_id: key.warehouseId, article_id: key.articleId, stock_type: key.stockType };
}

export interface KeyRow {
  id: number;
  lot: string;
  expiryDate: string;
  /** Thousandths. */
  quantity: number;
  reserved: number;
}

/**
 * Every balance row of the key, by id, each locked for the rest of the transaction (MySQL/MariaDB;
 * SQLite runs one writing transaction at a time): the allocation reads and writes them as one.
 * Read through the key's unique index (byUniqueKey): MariaDB chose the warehouse index by its
 * statistics and locked every balance of the warehouse, and documents of different articles
 * deadlocked (503s on 1-9 % of cancellations, order edits and adjustments under mixed load).
 */
export async function lockKeyRows(tx: Knex, key: BaseKey): Promise<KeyRow[]> {
  const query = byUniqueKey(tx, 'stock_balances', 'stock_balances_lot_key_unique').select('id', 'lot', 'expiry_date', 'quantity', 'reserved').where(baseColumns(key)).orderBy('id');
  if (engineOf(tx) === 'mysql') query.forUpdate();
  const rows: Array<{ id: number; lot: string; expiry_date: string; quantity: number | string; reserved: number | string }> = await query;
  return rows.map((r) => ({ id: Number(r.id), lot: r.lot, expiryDate: r.expiry_date, quantity: Number(r.quantity), reserved: Number(r.reserved) }));
}

/**
 * What open sales orders reserve of the key, per pinned lot ('' for lines without a pin),
 * thousandths: read as last committed and locked (MySQL/MariaDB; a plain read would answer the
 * transaction's snapshot, which may be older than the writer that held the key's rows before it),
 * through the key's unique index (as lockKeyRows).
 */
export async function demandsOf(tx: Knex, key: BaseKey): Promise<Demand[]> {
  const query = byUniqueKey(tx, 'stock_reservations', 'stock_reservations_key_unique').select('lot', 'quantity').where(baseColumns(key)).where('quantity', '>', 0);
  if (engineOf(tx) === 'mysql') query.forUpdate();
  const rows: Array<{ lot: string; quantity: number | string }> = await query;
  return rows.map((r) => ({ lot: r.lot, quantity: Number(r.quantity) }));
}

/**
 * Moves what open lines reserve of the key (pinned to `lot`, '' for none) by `delta` thousandths,
 * in one statement: a reservation is created or raised, never above `max` (false: the caller must
 * roll back); a release never takes it below zero (false: nothing changed).
 */
export async function changeDemand(tx: Knex, key: BaseKey, lot: string, delta: number, max: number): Promise<boolean> {
  const where = { ...baseColumns(key), lot };
  if (delta > 0) {
    await tx('stock_reservations')
      .insert({ ...where, quantity: delta })
      .onConflict(['company_id', 'warehouse_id', 'article_id', 'stock_type', 'lot'])
      .merge({ quantity: tx.raw('?? + ?', ['stock_reservations.quantity', delta]) });
    const row = (await tx('stock_reservations').select('quantity').where(where).first()) as { quantity: number | string };
    return Number(row.quantity) <= max;
  }
  const changed = await byUniqueKey(tx, 'stock_reservations', 'stock_reservations_key_unique')
    .where(where)
    .where('quantity', '>=', -delta)
    .update({ quantity: tx.raw('?? + ?', ['quantity', delta]) });
  return changed === 1;
}

/** Sets what a balance row (locked by the caller) has allocated. */
export async function setReserved(tx: Knex, id: number, reserved: number): Promise<void> {
  await tx('stock_balances').where('id', id).update({ reserved, updated_at: nowDb() });
}

/**
 * The keys (without lot) of rows whose expiry date is before `today` and that still hold a
 * reservation: allocated before the day their lot expired, and not spread again since.
 */
export async function keysWithExpiredReservations(tx: Knex, today: string, limit: number): Promise<BaseKey[]> {
  const rows: Array<{ company_id: number; warehouse_id: number; article_id: number; stock_type: StockKey['stockType'] }> = await tx('stock_balances')
    .distinct('company_id', 'warehouse_id', 'article_id', 'stock_type')
    .where('expiry_date', '<>', '')
    .where('expiry_date', '<', today)
    .where('reserved', '>', 0)
    .limit(limit);
  return rows.map((r) => ({ clientId: r.company_id, warehouseId: r.warehouse_id, articleId: r.article_id, stockType: r.stock_type }));
}

/** Whether the article keeps stock per lot or expiry date. */
export async function tracksLots(tx: Knex, articleId: number): Promise<boolean> {
  const row = (await tx('articles').select('lot_tracked', 'expiry_tracked').where('id', articleId).first()) as { lot_tracked: number | boolean; expiry_tracked: number | boolean } | undefined;
  return Boolean(row?.lot_tracked) || Boolean(row?.expiry_tracked);
}

/**
 * Rows whose lot expired before `today` with stock on hand, last changed on or before their expiry
 * date: their `available` fell to 0 at midnight, with nothing written. Read without locks.
 */
function expiredUnstamped(db: Knex, today: string): Knex.QueryBuilder {
  return db('stock_balances')
    .where('expiry_date', '<>', '')
    .where('expiry_date', '<', today)
    .where('quantity', '>', 0)
    .whereRaw('SUBSTR(??, 1, 10) <= ??', ['updated_at', 'expiry_date']);
}

/** Up to `limit` ids above `afterId` of the rows whose lot expired unannounced (expiredUnstamped), in id order. */
export async function expiredRowsUnstamped(db: Knex, today: string, afterId: number, limit: number): Promise<number[]> {
  return (await expiredUnstamped(db, today).where('id', '>', afterId).select('id').orderBy('id').limit(limit)).map((r: { id: number }) => r.id);
}

/** Gives those of `ids` that still expired unannounced the time now as `updated_at`; answers how many. */
export function stampExpiredRows(db: Knex, today: string, ids: readonly number[]): Promise<number> {
  return expiredUnstamped(db, today).whereIn('id', ids as number[]).update({ updated_at: nowDb() });
}

/**
 * The expiry dates ('' for none) of the balance rows of each article and lot of `pins` in one
 * warehouse and stock type, keyed `<article id>:<lot>` (a pair with no row has no entry).
 */
export async function lotExpiryDates(tx: Knex, place: Omit<BaseKey, 'articleId'>, pins: ReadonlyArray<{ articleId: number; lot: string }>): Promise<Map<string, string[]>> {
  const dates = new Map<string, string[]>();
  if (pins.length === 0) return dates;
  const rows: Array<{ article_id: number; lot: string; expiry_date: string }> = await tx('stock_balances')
    .select('article_id', 'lot', 'expiry_date')
    .where({ company_id: place.clientId, warehouse_id: place.warehouseId, stock_type: place.stockType })
    .whereIn('article_id', [...new Set(pins.map((pin) => pin.articleId))])
    .whereIn('lot', [...new Set(pins.map((pin) => pin.lot))]);
  for (const row of rows) {
    const key = `${Number(row.article_id)}:${row.lot}`;
    dates.set(key, [...(dates.get(key) ?? []), row.expiry_date]);
  }
  return dates;
}
