/** Stock balances and the movement ledger: SQL only. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { engineOf } from '../../platform/db/database.js';
import { insertInBatches } from '../../platform/db/insert-batches.js';
import { writeAtCommit, type CommitWriter } from '../../platform/db/transaction.js';
import { afterId, byUniqueKey, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { isExpired } from './stock.fefo.js';

export type StockLevel = Schema<'StockLevel'>;
export type StockType = Schema<'StockType'>;
export type StockAsOf = Schema<'StockAsOfRow'>;

export interface StockKey {
  clientId: number;
  warehouseId: number;
  articleId: number;
  stockType: StockType;
  /** The lot; absent or '' for none (an article that does not track lots). */
  lot?: string;
  /** The expiry date, `YYYY-MM-DD`; absent or '' for none. */
  expiryDate?: string;
  /**
   * Whether the article keeps stock per lot or expiry date (its balances' `reserved` is then the
   * allocation of stock_reservations, earliest expiry first). Read from the article when absent.
   */
  tracked?: boolean;
}

/** How a lot or expiry date is stored ('' for none) and shown (null for none). */
export const storedLot = (value: string | null | undefined): string => value ?? '';
export const shownLot = (value: string | null | undefined): string | null => (value ? value : null);

export interface BalanceRow {
  id: number;
  company_id: number;
  warehouse_id: number;
  article_id: number;
  article_code: string;
  stock_type: StockType;
  lot: string;
  expiry_date: string;
  quantity: number | string;
  reserved: number | string;
  updated_at: string | Date;
}

/** Today in UTC as `YYYY-MM-DD`: a balance whose expiry date is before it has expired. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}


export function toStockLevel(row: BalanceRow): StockLevel {
  const onHand = Number(row.quantity);
  const reserved = Number(row.reserved);
  const quantity = toQuantity(onHand);
  return {
    id: row.id,
    client_3pl_id: row.company_id,
    warehouse_id: row.warehouse_id,
    article_id: row.article_id,
    article_code: row.article_code,
    stock_type: row.stock_type,
    lot: shownLot(row.lot),
    expiry_date: shownLot(row.expiry_date),
    quantity,
    reserved: toQuantity(reserved),
    available: isExpired(row.expiry_date, todayUtc()) ? 0 : toQuantity(Math.max(onHand - reserved, 0)),
    backordered: toQuantity(Math.max(reserved - onHand, 0)),
    updated_at: toApiTime(row.updated_at),
  };
}

/** The columns of a balance's key, on the balances and on the ledger. */
export const KEY_COLUMNS = ['company_id', 'warehouse_id', 'article_id', 'stock_type', 'lot', 'expiry_date'] as const;

export function keyColumns(key: StockKey): Record<string, unknown> {
  return {
    company_id: key.clientId,
    warehouse_id: key.warehouseId,
    article_id: key.articleId,
    stock_type: key.stockType,
    lot: storedLot(key.lot),
    expiry_date: storedLot(key.expiryDate),
  };
}

/** The balances for a statement that names the whole key of one (its unique index; queries.ts byUniqueKey). */
function balanceByKey(tx: Knex): Knex.QueryBuilder {
  return byUniqueKey(tx, 'stock_balances', 'stock_balances_lot_key_unique');
}

function balances(tx: Knex): Knex.QueryBuilder {
  return tx('stock_balances as b')
    .join('articles as a', 'a.id', 'b.article_id')
    .select('b.id', 'b.company_id', 'b.warehouse_id', 'b.article_id', 'a.article_code', 'b.stock_type', 'b.lot', 'b.expiry_date', 'b.quantity', 'b.reserved', 'b.updated_at');
}

/**
 * The balance of `key`. `current` reads it as last committed (a locking read on MySQL/MariaDB),
 * not as the transaction's snapshot saw it: what a refusal reports must be what is on hand now.
 */
export async function findBalance(tx: Knex, key: StockKey, options: { current?: boolean } = {}): Promise<StockLevel | undefined> {
  const row = await findBalanceRow(tx, key, options);
  return row ? toStockLevel(row) : undefined;
}

/** The balance of `key` as stored (thousandths), with its article's code. */
export async function findBalanceRow(tx: Knex, key: StockKey, options: { current?: boolean } = {}): Promise<BalanceRow | undefined> {
  const query = balances(tx).where(Object.fromEntries(Object.entries(keyColumns(key)).map(([column, value]) => [`b.${column}`, value])));
  if (options.current && engineOf(tx) === 'mysql') query.forUpdate('b');
  return (await query.first()) as BalanceRow | undefined;
}

/**
 * The balance's quantities (thousandths), read with a lock on its row alone for the rest of the
 * transaction (MySQL/MariaDB; SQLite runs one writing transaction at a time); undefined when there
 * is no balance.
 */
export async function lockBalance(tx: Knex, key: StockKey): Promise<{ id: number; quantity: number; reserved: number } | undefined> {
  const query = balanceByKey(tx).select('id', 'quantity', 'reserved').where(keyColumns(key));
  if (engineOf(tx) === 'mysql') query.forUpdate();
  const row = (await query.first()) as { id: number | string; quantity: number | string; reserved: number | string } | undefined;
  return row && { id: Number(row.id), quantity: Number(row.quantity), reserved: Number(row.reserved) };
}

/** Creates the balance at zero unless it exists (one statement; a balance that exists is left alone). */
export async function ensureBalance(tx: Knex, key: StockKey): Promise<void> {
  await tx('stock_balances')
    .insert({ ...keyColumns(key), quantity: 0, reserved: 0, updated_at: nowDb() })
    .onConflict([...KEY_COLUMNS])
    .ignore();
}

/** Sets the balance to `quantity` thousandths only if it still holds `expected` (one statement); true when it did. */
export async function setBalance(tx: Knex, key: StockKey, quantity: number, expected: number): Promise<boolean> {
  const changed = await balanceByKey(tx).where(keyColumns(key)).where('quantity', expected).update({ quantity, updated_at: nowDb() });
  return changed === 1;
}

/**
 * True when the balance's `column` holds at most `max` thousandths. Read right after this
 * transaction raised it: the raise holds the row's lock (MySQL/MariaDB; SQLite runs one
 * transaction at a time), so the value is the one this transaction will commit, with every
 * committed raise of others in it: no concurrent raise can slip past the limit.
 */
async function withinLimit(tx: Knex, key: StockKey, column: 'quantity' | 'reserved', max: number): Promise<boolean> {
  const row = (await tx('stock_balances').select(column).where(keyColumns(key)).first()) as Record<string, number | string>;
  return Number(row[column]) <= max;
}

/**
 * Raises a balance by `delta` thousandths, creating it at `delta` when it does not exist (one
 * statement). False when that takes it above `max` thousandths: the caller must then roll back.
 */
export async function raiseBalance(tx: Knex, key: StockKey, delta: number, max: number): Promise<boolean> {
  const now = nowDb();
  await tx('stock_balances')
    .insert({ ...keyColumns(key), quantity: delta, updated_at: now })
    .onConflict([...KEY_COLUMNS])
    .merge({ quantity: tx.raw('?? + ?', ['stock_balances.quantity', delta]), updated_at: now });
  return withinLimit(tx, key, 'quantity', max);
}

/**
 * Lowers a balance by `delta` thousandths only if that much of it is available, on hand and not
 * reserved by open sales orders (one statement); true when it did.
 */
export async function lowerAvailable(tx: Knex, key: StockKey, delta: number): Promise<boolean> {
  const changed = await balanceByKey(tx)
    .where(keyColumns(key))
    .where('quantity', '>=', delta)
    .whereRaw('?? - ?? >= ?', ['quantity', 'reserved', delta])
    .update({ quantity: tx.raw('?? - ?', ['quantity', delta]), updated_at: nowDb() });
  return changed === 1;
}

/** Lowers a balance by `delta` thousandths only if it holds that much (one statement); true when it did. */
export async function lowerBalance(tx: Knex, key: StockKey, delta: number): Promise<boolean> {
  const changed = await balanceByKey(tx)
    .where(keyColumns(key))
    .where('quantity', '>=', delta)
    .update({ quantity: tx.raw('?? - ?', ['quantity', delta]), updated_at: nowDb() });
  return changed === 1;
}

/**
 * Moves what open sales orders reserve on a balance by `delta` thousandths: a reservation may come
 * before any stock (the balance is created at 0 on hand), never above `max` thousandths (false: the
 * caller must roll back); a release never takes it below zero (false: nothing changed).
 */
export async function changeReserved(tx: Knex, key: StockKey, delta: number, max: number): Promise<boolean> {
  const now = nowDb();
  if (delta > 0) {
    await tx('stock_balances')
      .insert({ ...keyColumns(key), quantity: 0, reserved: delta, updated_at: now })
      .onConflict([...KEY_COLUMNS])
      .merge({ reserved: tx.raw('?? + ?', ['stock_balances.reserved', delta]), updated_at: now });
    return withinLimit(tx, key, 'reserved', max);
  }
  const changed = await balanceByKey(tx)
    .where(keyColumns(key))
    .where('reserved', '>=', -delta)
    .update({ reserved: tx.raw('?? + ?', ['reserved', delta]), updated_at: now });
  return changed === 1;
}

/** Takes `delta` thousandths on hand and out of the reservation of a delivered order, only if both hold it (one statement). */
export async function deliverFromBalance(tx: Knex, key: StockKey, delta: number): Promise<boolean> {
  const changed = await balanceByKey(tx)
    .where(keyColumns(key))
    .where('quantity', '>=', delta)
    .where('reserved', '>=', delta)
    .update({ quantity: tx.raw('?? - ?', ['quantity', delta]), reserved: tx.raw('?? - ?', ['reserved', delta]), updated_at: nowDb() });
  return changed === 1;
}

type MovementRow = Record<string, unknown>;

/** Statements of at most this many rows or ids (SQLite binds at most 32,766 values a statement). */
const ROWS_PER_STATEMENT = 500;

/**
 * The ledger's movements of a transaction, written at its end in one statement (writeAtCommit), at
 * one instant: stock as of a time (summed from the ledger) shows a document whole or not at all,
 * never a transfer half moved or a reception half received, and a document that changed a balance
 * after it waited for this one's lock stands later.
 */
const movementsAtCommit: CommitWriter<MovementRow> = {
  async write(tx, rows, at) {
    await insertInBatches(tx, 'stock_movements', rows.map((row) => ({ ...row, created_at: at })), { maxRows: ROWS_PER_STATEMENT, maxBytes: Infinity });
  },
};

/** The balances whose change a transaction announced: their `updated_at` is the transaction's instant, its movements' and its events' time. */
const balanceTimesAtCommit: CommitWriter<number> = {
  async write(tx, ids, at) {
    const unique = [...new Set(ids)];
    for (let start = 0; start < unique.length; start += ROWS_PER_STATEMENT) {
      await tx('stock_balances').whereIn('id', unique.slice(start, start + ROWS_PER_STATEMENT)).update({ updated_at: at });
    }
  },
};

/** Writes a movement of the ledger at the end of the transaction. */
export function insertMovement(
  tx: Knex.Transaction,
  key: StockKey,
  movement: { delta: number; quantityAfter: number; cause: string; documentKind: string; documentId: number; userId: number | null },
): Promise<void> {
  return writeAtCommit(tx, movementsAtCommit, {
    ...keyColumns(key),
    delta: movement.delta,
    quantity_after: movement.quantityAfter,
    cause: movement.cause,
    document_kind: movement.documentKind,
    document_id: movement.documentId,
    user_id: movement.userId,
  });
}

/** Gives the balance `id` the time of the transaction's end, when its movements and events are written. */
export function stampBalanceAtCommit(tx: Knex.Transaction, id: number): Promise<void> {
  return writeAtCommit(tx, balanceTimesAtCommit, id);
}

/** The balances of an article that are not zero, on hand or reserved (thousandths). */
export async function nonZeroBalancesOf(tx: Knex, articleId: number): Promise<Array<{ quantity: number; reserved: number }>> {
  const rows: Array<{ quantity: number | string; reserved: number | string }> = await tx('stock_balances')
    .select('quantity', 'reserved')
    .where('article_id', articleId)
    .where((q) => q.whereNot('quantity', 0).orWhereNot('reserved', 0));
  return rows.map((r) => ({ quantity: Number(r.quantity), reserved: Number(r.reserved) }));
}

export interface StockFilters {
  warehouse_id?: number;
  /** One or more article ids. */
  article_id?: readonly number[];
  /** One or more article codes. */
  article_code?: readonly string[];
  stock_type?: StockType;
  /** One lot, compared exactly. */
  lot?: string;
  /** Only rows with an expiry date before this day (`YYYY-MM-DD`). */
  expires_before?: string;
  updated_since?: string;
}

/** The balances in scope that pass the filters: the query of a page, and the cheaper one that counts them. */
function filteredBalances(tx: Knex, scope: CompanyScope, filters: StockFilters): { page: Knex.QueryBuilder; count: Knex.QueryBuilder } {
  const filtered = (query: Knex.QueryBuilder): Knex.QueryBuilder => {
    whereClientInScope(query, scope, 'b.company_id');
    if (filters.warehouse_id !== undefined) query.where('b.warehouse_id', filters.warehouse_id);
    if (filters.article_id !== undefined) query.whereIn('b.article_id', [...new Set(filters.article_id)]);
    if (filters.article_code !== undefined) query.whereIn('a.article_code', [...new Set(filters.article_code)]);
    if (filters.stock_type !== undefined) query.where('b.stock_type', filters.stock_type);
    if (filters.lot !== undefined) query.where('b.lot', filters.lot);
    if (filters.expires_before !== undefined) query.where('b.expiry_date', '<>', '').where('b.expiry_date', '<', filters.expires_before);
    if (filters.updated_since !== undefined) query.where('b.updated_at', '>=', filters.updated_since);
    return query;
  };
  // Every balance has its article (a foreign key), so the count joins articles only to match a code:
  // without the join it reads the unique key alone (MariaDB joined all 40,000 articles: 55 ms).
  const count = filtered(filters.article_code === undefined ? tx('stock_balances as b') : balances(tx).clearSelect());
  return { page: filtered(balances(tx)).orderBy('b.id'), count };
}

export function listStock(tx: Knex, scope: CompanyScope, filters: StockFilters, page: PageRequest): Promise<Paged<StockLevel>> {
  const { page: query, count } = filteredBalances(tx, scope, filters);
  return paged(query, page, toStockLevel, count);
}

/** A balance as it stood at an instant, with its stock row's id (GraphQL's keyset; REST's rows leave it out). */
export type StockAsOfWithId = StockAsOf & { id: number };

/**
 * Each balance's quantity on hand at `at` (as stored), read from the ledger: the balance after its
 * last movement created at or before `at` (an index seek per row on the key and time), 0 when it
 * had none.
 */
async function asOf(tx: Knex, balances: readonly BalanceRow[], at: string): Promise<StockAsOfWithId[]> {
  if (balances.length === 0) return [];
  const last = tx('stock_movements as m')
    .select('m.quantity_after')
    .where('m.created_at', '<=', at)
    .orderBy([{ column: 'm.created_at', order: 'desc' }, { column: 'm.id', order: 'desc' }])
    .limit(1);
  for (const column of KEY_COLUMNS) last.whereRaw('?? = ??', [`m.${column}`, `b.${column}`]);
  const rows: Array<{ id: number; quantity_at: number | string | null }> = await tx('stock_balances as b')
    .select('b.id', last.as('quantity_at'))
    .whereIn('b.id', balances.map((r) => r.id));
  const quantityAt = new Map(rows.map((r) => [Number(r.id), Number(r.quantity_at ?? 0)]));
  return balances.map((b) => ({
    id: b.id,
    client_3pl_id: b.company_id,
    warehouse_id: b.warehouse_id,
    article_id: b.article_id,
    article_code: b.article_code,
    stock_type: b.stock_type,
    lot: shownLot(b.lot),
    expiry_date: shownLot(b.expiry_date),
    quantity: toQuantity(quantityAt.get(b.id) ?? 0),
  }));
}

/** The page of GET /api/stock with each balance's quantity on hand at `at` (asOf). */
export async function listStockAsOf(tx: Knex, scope: CompanyScope, filters: StockFilters, page: PageRequest, at: string): Promise<Paged<StockAsOf>> {
  const { page: query, count } = filteredBalances(tx, scope, filters);
  const result = await paged(query, page, (row: BalanceRow) => row, count);
  return { rows: (await asOf(tx, result.rows, at)).map(({ id: _id, ...row }) => row), total: result.total };
}

/** Balances with ids above `after` that pass the filters, by id, as they stood at `at` (GraphQL's keyset). */
export async function stockAsOfAfter(tx: Knex, scope: CompanyScope, filters: StockFilters, options: { after?: number; limit: number }, at: string): Promise<StockAsOfWithId[]> {
  const query = filteredBalances(tx, scope, filters).page.clearOrder();
  return asOf(tx, (await afterId(query, options.after, options.limit, 'b.id')) as BalanceRow[], at);
}

/** Balances with ids above `after` that pass the filters, by id (the GraphQL keyset). */
export async function stockAfter(tx: Knex, scope: CompanyScope, filters: StockFilters, options: { after?: number; limit: number }): Promise<StockLevel[]> {
  const query = filteredBalances(tx, scope, filters).page.clearOrder();
  return ((await afterId(query, options.after, options.limit, 'b.id')) as BalanceRow[]).map(toStockLevel);
}
