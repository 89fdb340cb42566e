/** Sales orders, their lines and their status history: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity, type LotQuantity } from '../../kernel/quantity.js';
import { toApiTime } from '../../kernel/time.js';
import { timeOfWrite } from '../../platform/db/transaction.js';
import { engineOf, insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { SalesOrderStatus } from './sales-orders.rules.js';
import { summariesOf, type ShipmentSummary } from './shipments.repository.js';

export type SalesOrderResource = Schema<'SalesOrder'>;

export interface SalesOrderRow {
  id: number;
  company_id: number;
  partner_id: number;
  source_warehouse_id: number;
  stock_type: Schema<'StockType'>;
  internal_code: string;
  status: SalesOrderStatus;
  notes: string | null;
  external_reference: string | null;
  /** 0/1 as the engines store a boolean; a SalesOrder has it as a boolean. */
  on_hold: boolean | number;
  hold_reason: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface SalesOrderItemRow {
  id: number;
  sales_order_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  /** Thousandths, like `delivered_quantity` (what its shipments took). */
  quantity: number;
  delivered_quantity: number;
  /** The pinned lot, null for none. */
  lot: string | null;
  /** Whether the article keeps stock per lot or expiry date. */
  tracked: boolean;
}

interface HistoryRow {
  sales_order_id: number;
  status: SalesOrderStatus;
  at: string | Date;
  user_id: number | null;
  user_name: string | null;
  user_email: string | null;
}

export interface SalesOrder extends SalesOrderRow {
  on_hold: boolean;
  items: SalesOrderItemRow[];
  history: HistoryRow[];
  shipments: ShipmentSummary[];
}

export function toSalesOrder(order: SalesOrder): SalesOrderResource {
  return {
    id: order.id,
    client_3pl_id: order.company_id,
    partner_id: order.partner_id,
    source_warehouse_id: order.source_warehouse_id,
    stock_type: order.stock_type,
    internal_code: order.internal_code,
    status: order.status,
    notes: order.notes,
    external_reference: order.external_reference,
    on_hold: order.on_hold,
    hold_reason: order.hold_reason,
    items: order.items.map((i) => ({
      id: i.id,
      article_id: i.article_id,
      article_code: i.article_code,
      um3pl: i.um3pl,
      quantity_um3pl: toQuantity(i.quantity),
      delivered_quantity_um3pl: toQuantity(i.delivered_quantity),
      lot: i.lot,
    })),
    shipments: order.shipments,
    status_history: order.history.map((h) => ({
      status: h.status,
      at: toApiTime(h.at),
      user: h.user_id === null ? null : { id: h.user_id, name: h.user_name ?? '', email: h.user_email ?? '' },
    })),
    created_at: toApiTime(order.created_at),
    updated_at: toApiTime(order.updated_at),
  };
}

async function withDetails(tx: Knex, orders: SalesOrderRow[]): Promise<SalesOrder[]> {
  if (orders.length === 0) return [];
  const ids = orders.map((o) => o.id);
  const [items, history, shipments] = await Promise.all([
    tx('sales_order_items as i')
      .join('articles as a', 'a.id', 'i.article_id')
      .select('i.id', 'i.sales_order_id', 'i.article_id', 'a.article_code', 'i.um3pl', 'i.quantity', 'i.delivered_quantity', 'i.lot', 'a.lot_tracked', 'a.expiry_tracked')
      .whereIn('i.sales_order_id', ids)
      .orderBy('i.id') as Promise<Array<SalesOrderItemRow & { lot_tracked: number | boolean; expiry_tracked: number | boolean }>>,
    tx('sales_order_status_history as h')
      .leftJoin('users as u', 'u.id', 'h.user_id')
      .select('h.sales_order_id', 'h.status', 'h.at', 'h.user_id', 'u.name as user_name', 'u.email as user_email')
      .whereIn('h.sales_order_id', ids)
      .orderBy('h.id') as Promise<HistoryRow[]>,
    summariesOf(tx, ids),
  ]);
  return orders.map((o) => ({
    ...o,
    on_hold: Boolean(o.on_hold),
    items: items
      .filter((i) => i.sales_order_id === o.id)
      .map(({ lot_tracked, expiry_tracked, ...i }) => ({
        ...i,
        quantity: Number(i.quantity),
        delivered_quantity: Number(i.delivered_quantity),
        lot: i.lot ? i.lot : null,
        tracked: Boolean(lot_tracked) || Boolean(expiry_tracked),
      })),
    history: history.filter((h) => h.sales_order_id === o.id),
    shipments: shipments.get(o.id) ?? [],
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('sales_orders').select('*'), scope, 'company_id');
}

export interface SalesOrderFilters {
  status?: SalesOrderStatus;
  partner_id?: number;
  internal_code?: string;
  updatedSince?: string;
}

function filtered(query: Knex.QueryBuilder, filters: SalesOrderFilters): Knex.QueryBuilder {
  if (filters.status) query.where('status', filters.status);
  if (filters.partner_id !== undefined) query.where('partner_id', filters.partner_id);
  if (filters.internal_code !== undefined) query.where('internal_code', filters.internal_code);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

export async function listOrders(tx: Knex, scope: CompanyScope, filters: SalesOrderFilters, page: PageRequest): Promise<Paged<SalesOrderResource>> {
  const result = await paged(filtered(inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: SalesOrderRow) => row);
  return { rows: (await withDetails(tx, result.rows)).map(toSalesOrder), total: result.total };
}

/** Orders with ids above `after`, by id (the GraphQL keyset), with the list's filters. */
export async function ordersAfter(tx: Knex, scope: CompanyScope, filters: SalesOrderFilters, options: { after?: number; limit: number }): Promise<SalesOrderResource[]> {
  return (await withDetails(tx, (await afterId(filtered(inScope(tx, scope), filters), options.after, options.limit)) as SalesOrderRow[])).map(toSalesOrder);
}

export async function findOrder(tx: Knex, scope: CompanyScope, id: number): Promise<SalesOrder | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as SalesOrderRow | undefined;
  return row ? (await withDetails(tx, [row]))[0] : undefined;
}


/** Inserts a new order, created at the transaction's time (timeOfWrite: its first history entry's too). */
export async function insertOrder(tx: Knex, fields: Omit<SalesOrderRow, 'id' | 'status' | 'on_hold' | 'hold_reason' | 'created_at' | 'updated_at'>): Promise<number> {
  const at = timeOfWrite(tx);
  return insertReturningId(tx, 'sales_orders', { ...fields, status: 'new', on_hold: false, hold_reason: null, created_at: at, updated_at: at });
}

export async function insertItems(tx: Knex, orderId: number, lines: Array<{ articleId: number; um3pl: string; quantity: number; lot: string }>): Promise<void> {
  await tx('sales_order_items').insert(lines.map((l) => ({ sales_order_id: orderId, article_id: l.articleId, um3pl: l.um3pl, quantity: l.quantity, lot: l.lot || null })));
}

export async function deleteItems(tx: Knex, orderId: number): Promise<void> {
  await tx('sales_order_items').where('sales_order_id', orderId).delete();
}

/** Records that the order reached `status`, at the transaction's time (the order's updated_at of the move). */
export async function addHistory(tx: Knex, orderId: number, status: SalesOrderStatus, userId: number | null): Promise<void> {
  await tx('sales_order_status_history').insert({ sales_order_id: orderId, status, user_id: userId, at: timeOfWrite(tx) });
}

export async function updateOrder(tx: Knex, id: number, changes: Partial<SalesOrderRow>): Promise<void> {
  await tx('sales_orders').where('id', id).update({ ...changes, updated_at: timeOfWrite(tx) });
}

/**
 * Locks the order's row (when it is in `scope`) for the rest of the transaction, so writers of one
 * order queue up; true when the order is there to lock. Take it before the transaction's first
 * plain read: on MySQL/MariaDB that read fixes the snapshot every later one sees.
 */
export async function lockOrder(tx: Knex, id: number, scope?: CompanyScope): Promise<boolean> {
  const query = tx('sales_orders').where('id', id);
  if (scope) whereClientInScope(query, scope, 'company_id');
  return (await query.update({ id: tx.raw('??', ['id']) })) === 1;
}

/** The order's status as last committed (a locking read on MySQL/MariaDB, not the transaction's snapshot). */
export async function currentStatus(tx: Knex, id: number): Promise<SalesOrderStatus> {
  const query = tx('sales_orders').select('status').where('id', id);
  if (engineOf(tx) === 'mysql') query.forUpdate();
  return ((await query.first()) as { status: SalesOrderStatus }).status;
}

/**
 * Moves the order from `from` to `to` only if it is still in `from` (one statement): of two
 * requests racing to move one order, exactly one wins. True when this one did.
 */
export async function moveStatus(tx: Knex, id: number, from: SalesOrderStatus, to: SalesOrderStatus): Promise<boolean> {
  return (await tx('sales_orders').where({ id, status: from }).update({ status: to, updated_at: timeOfWrite(tx) })) === 1;
}

/** The lines of the article on orders in `statuses`, with their order's code (thousandths). */
export async function linesOfArticle(
  tx: Knex,
  articleId: number,
  statuses: readonly SalesOrderStatus[],
): Promise<Array<{ internal_code: string; quantity: number; delivered_quantity: number }>> {
  const rows: Array<{ internal_code: string; quantity: number | string; delivered_quantity: number | string }> = await tx('sales_order_items as i')
    .join('sales_orders as o', 'o.id', 'i.sales_order_id')
    .select('o.internal_code', 'i.quantity', 'i.delivered_quantity')
    .where('i.article_id', articleId)
    .whereIn('o.status', statuses)
    .orderBy('i.id');
  return rows.map((r) => ({ internal_code: r.internal_code, quantity: Number(r.quantity), delivered_quantity: Number(r.delivered_quantity) }));
}

/**
 * Adds `quantity` thousandths to what a line delivered, only while the line has that much left
 * (one statement: a line never ships beyond its quantity, whatever the concurrency); true when it did.
 */
export async function addDelivered(tx: Knex, itemId: number, quantity: number): Promise<boolean> {
  const changed = await tx('sales_order_items')
    .where('id', itemId)
    .whereRaw('?? - ?? >= ?', ['quantity', 'delivered_quantity', quantity])
    .update({ delivered_quantity: tx.raw('?? + ?', ['delivered_quantity', quantity]) });
  return changed === 1;
}

/** Sets or lifts the order's hold (`reason` null lifts it). */
export async function setHold(tx: Knex, id: number, reason: string | null): Promise<void> {
  await tx('sales_orders').where('id', id).update({ on_hold: reason !== null, hold_reason: reason, updated_at: timeOfWrite(tx) });
}

/** What the order's shipments took of each lot and expiry date (of articles that track either). */
export async function shippedByLot(tx: Knex, orderId: number): Promise<LotQuantity[]> {
  const rows: Array<{ article_id: number; lot: string; expiry_date: string; total: number | string }> = await tx('shipment_item_lots as l')
    .join('shipment_items as s', 's.id', 'l.shipment_item_id')
    .join('sales_order_items as i', 'i.id', 's.sales_order_item_id')
    .select('i.article_id', 'l.lot', 'l.expiry_date')
    .sum({ total: 'l.quantity' })
    .where('i.sales_order_id', orderId)
    .where((q) => q.where('l.lot', '<>', '').orWhere('l.expiry_date', '<>', ''))
    .groupBy('i.article_id', 'l.lot', 'l.expiry_date');
  return rows.map((r) => ({ articleId: r.article_id, lot: r.lot, expiryDate: r.expiry_date, quantity: Number(r.total) }));
}

/** Per article and unit its lines were in: what the order's shipments delivered, in thousandths (lines of which nothing shipped are absent). */
export async function deliveredByArticle(tx: Knex, orderId: number): Promise<Array<{ articleId: number; um3pl: string; quantity: number }>> {
  const rows: Array<{ article_id: number; um3pl: string; total: number | string }> = await tx('sales_order_items')
    .select('article_id', 'um3pl')
    .sum({ total: 'delivered_quantity' })
    .where('sales_order_id', orderId)
    .groupBy('article_id', 'um3pl');
  return rows.filter((r) => Number(r.total) > 0).map((r) => ({ articleId: r.article_id, um3pl: r.um3pl, quantity: Number(r.total) }));
}
