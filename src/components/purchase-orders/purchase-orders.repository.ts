/** Purchase orders and their lines: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { PurchaseOrderStatus } from './purchase-orders.rules.js';

export type PurchaseOrder = Schema<'PurchaseOrder'>;

export interface OrderRow {
  id: number;
  company_id: number;
  partner_id: number;
  internal_code: string;
  status: PurchaseOrderStatus;
  notes: string | null;
  external_reference: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface ItemRow {
  id: number;
  purchase_order_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  quantity: number;
  received_quantity: number;
}

export interface Order extends OrderRow {
  items: ItemRow[];
}

export function toPurchaseOrder(order: Order): PurchaseOrder {
  return {
    id: order.id,
    client_3pl_id: order.company_id,
    partner_id: order.partner_id,
    internal_code: order.internal_code,
    status: order.status,
    notes: order.notes,
    external_reference: order.external_reference,
    items: order.items.map((i) => ({
      id: i.id,
      article_id: i.article_id,
      article_code: i.article_code,
      um3pl: i.um3pl,
      quantity_um3pl: toQuantity(Number(i.quantity)),
      received_quantity_um3pl: toQuantity(Number(i.received_quantity)),
    })),
    created_at: toApiTime(order.created_at),
    updated_at: toApiTime(order.updated_at),
  };
}

async function withItems(tx: Knex, orders: OrderRow[]): Promise<Order[]> {
  if (orders.length === 0) return [];
  const items = (await tx('purchase_order_items as i')
    .join('articles as a', 'a.id', 'i.article_id')
    .select('i.id', 'i.purchase_order_id', 'i.article_id', 'a.article_code', 'i.um3pl', 'i.quantity', 'i.received_quantity')
    .whereIn('i.purchase_order_id', orders.map((o) => o.id))
    .orderBy('i.id')) as ItemRow[];
  return orders.map((o) => ({
    ...o,
    items: items
      .filter((i) => i.purchase_order_id === o.id)
      .map((i) => ({ ...i, quantity: Number(i.quantity), received_quantity: Number(i.received_quantity) })),
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('purchase_orders').select('*'), scope, 'company_id');
}

export interface OrderFilters {
  status?: PurchaseOrderStatus;
  partner_id?: number;
  internal_code?: string;
  updatedSince?: string;
}

function filtered(query: Knex.QueryBuilder, filters: OrderFilters): Knex.QueryBuilder {
  if (filters.status) query.where('status', filters.status);
  if (filters.partner_id !== undefined) query.where('partner_id', filters.partner_id);
  if (filters.internal_code !== undefined) query.where('internal_code', filters.internal_code);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

export async function listOrders(tx: Knex, scope: CompanyScope, filters: OrderFilters, page: PageRequest): Promise<Paged<PurchaseOrder>> {
  const result = await paged(filtered(inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: OrderRow) => row);
  return { rows: (await withItems(tx, result.rows)).map(toPurchaseOrder), total: result.total };
}

export async function findOrder(tx: Knex, scope: CompanyScope, id: number): Promise<Order | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as OrderRow | undefined;
  return row ? (await withItems(tx, [row]))[0] : undefined;
}


export async function insertOrder(
  tx: Knex,
  fields: Pick<OrderRow, 'company_id' | 'partner_id' | 'internal_code' | 'notes' | 'external_reference'>,
): Promise<number> {
  const now = nowDb();
  return insertReturningId(tx, 'purchase_orders', { ...fields, status: 'open', created_at: now, updated_at: now });
}

export async function insertItems(tx: Knex, orderId: number, lines: Array<{ articleId: number; um3pl: string; quantity: number }>): Promise<void> {
  await tx('purchase_order_items').insert(
    lines.map((l) => ({ purchase_order_id: orderId, article_id: l.articleId, um3pl: l.um3pl, quantity: l.quantity, received_quantity: 0 })),
  );
}

/** Deletes the lines of an order only while none is received; false when one was (meanwhile). */
export async function deleteUnreceivedItems(tx: Knex, orderId: number): Promise<boolean> {
  await tx('purchase_order_items').where({ purchase_order_id: orderId, received_quantity: 0 }).delete();
  const left = await tx('purchase_order_items').where('purchase_order_id', orderId).count({ n: '*' }).first();
  return Number(left?.n ?? 0) === 0;
}

export async function updateOrder(tx: Knex, id: number, changes: Partial<OrderRow>): Promise<void> {
  await tx('purchase_orders').where('id', id).update({ ...changes, updated_at: nowDb() });
}

/**
 * Moves a line's received quantity by `delta` thousandths in one conditional statement: never
 * above the ordered quantity nor below zero. True when it moved.
 */
export async function moveReceived(tx: Knex, orderId: number, itemId: number, delta: number): Promise<boolean> {
  const query = tx('purchase_order_items').where({ id: itemId, purchase_order_id: orderId });
  if (delta > 0) query.whereRaw('?? + ? <= ??', ['received_quantity', delta, 'quantity']);
  else query.where('received_quantity', '>=', -delta);
  const changed = await query.update({ received_quantity: tx.raw('?? + ?', ['received_quantity', delta]) });
  return changed === 1;
}

/** The lines of the article on orders in `statuses`, with their order's code (thousandths). */
export async function linesOfArticle(
  tx: Knex,
  articleId: number,
  statuses: readonly PurchaseOrderStatus[],
): Promise<Array<{ internal_code: string; quantity: number; received_quantity: number }>> {
  const rows: Array<{ internal_code: string; quantity: number | string; received_quantity: number | string }> = await tx('purchase_order_items as i')
    .join('purchase_orders as o', 'o.id', 'i.purchase_order_id')
    .select('o.internal_code', 'i.quantity', 'i.received_quantity')
    .where('i.article_id', articleId)
    .whereIn('o.status', statuses)
    .orderBy('i.id');
  return rows.map((r) => ({ internal_code: r.internal_code, quantity: Number(r.quantity), received_quantity: Number(r.received_quantity) }));
}

/** Orders with ids above `after`, by id (the GraphQL keyset), with the list's filters. */
export async function ordersAfter(tx: Knex, scope: CompanyScope, filters: OrderFilters, options: { after?: number; limit: number }): Promise<PurchaseOrder[]> {
  return (await withItems(tx, (await afterId(filtered(inScope(tx, scope), filters), options.after, options.limit)) as OrderRow[])).map(toPurchaseOrder);
}

/** Locks the order's row for the rest of the transaction, so writers of one order queue up in one order. */
export async function lockOrder(tx: Knex, id: number): Promise<void> {
  await tx('purchase_orders').where('id', id).update({ id: tx.raw('??', ['id']) });
}
