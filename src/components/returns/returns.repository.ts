/** Returns and their lines: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import { toQuantity, type LotQuantity } from '../../kernel/quantity.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import type { PageRequest } from '../../kernel/paging.js';
import { insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type ReturnResource = Schema<'Return'>;
type StockType = Schema<'StockType'>;

interface ReturnRow {
  id: number;
  company_id: number;
  partner_id: number;
  warehouse_id: number;
  sales_order_id: number | null;
  internal_code: string | null;
  reason: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

interface ReturnItemRow {
  id: number;
  return_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  quantity: number | string;
  stock_type: StockType;
  lot: string | null;
  expiry_date: string | null;
}

async function withItems(tx: Knex, rows: ReturnRow[]): Promise<ReturnResource[]> {
  if (rows.length === 0) return [];
  const items = (await tx('return_items as i')
    .join('articles as a', 'a.id', 'i.article_id')
    .select('i.id', 'i.return_id', 'i.article_id', 'a.article_code', 'i.um3pl', 'i.quantity', 'i.stock_type', 'i.lot', 'i.expiry_date')
    .whereIn('i.return_id', rows.map((r) => r.id))
    .orderBy('i.id')) as ReturnItemRow[];
  return rows.map((r) => ({
    id: r.id,
    client_3pl_id: r.company_id,
    partner_id: r.partner_id,
    warehouse_id: r.warehouse_id,
    sales_order_id: r.sales_order_id,
    internal_code: r.internal_code,
    reason: r.reason,
    items: items
      .filter((i) => i.return_id === r.id)
      .map((i) => ({
        id: i.id,
        article_id: i.article_id,
        article_code: i.article_code,
        um3pl: i.um3pl,
        quantity_um3pl: toQuantity(Number(i.quantity)),
        stock_type: i.stock_type,
        lot: i.lot || null,
        expiry_date: i.expiry_date || null,
      })),
    created_at: toApiTime(r.created_at),
    updated_at: toApiTime(r.updated_at),
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('returns').select('*'), scope, 'company_id');
}

export interface ReturnFilters {
  salesOrderId?: number;
  updatedSince?: string;
}

function filtered(query: Knex.QueryBuilder, filters: ReturnFilters): Knex.QueryBuilder {
  if (filters.salesOrderId !== undefined) query.where('sales_order_id', filters.salesOrderId);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

/** A page of the returns in scope, newest first. */
export async function listReturns(tx: Knex, scope: CompanyScope, filters: ReturnFilters, page: PageRequest): Promise<Paged<ReturnResource>> {
  const result = await paged(filtered(inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: ReturnRow) => row);
  return { rows: await withItems(tx, result.rows), total: result.total };
}

/** Returns with ids above `after`, by id (the GraphQL keyset). */
export async function returnsAfter(tx: Knex, scope: CompanyScope, filters: ReturnFilters, options: { after?: number; limit: number }): Promise<ReturnResource[]> {
  return withItems(tx, (await afterId(filtered(inScope(tx, scope), filters), options.after, options.limit)) as ReturnRow[]);
}

export async function findReturn(tx: Knex, scope: CompanyScope, id: number): Promise<ReturnResource | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as ReturnRow | undefined;
  return row ? (await withItems(tx, [row]))[0] : undefined;
}


/** What earlier returns against the sales order took back of each lot and expiry date (of articles that track either). */
export async function returnedByLot(tx: Knex, salesOrderId: number): Promise<LotQuantity[]> {
  const rows: Array<{ article_id: number; lot: string | null; expiry_date: string | null; total: number | string }> = await tx('return_items as i')
    .join('returns as r', 'r.id', 'i.return_id')
    .select('i.article_id', 'i.lot', 'i.expiry_date')
    .sum({ total: 'i.quantity' })
    .where('r.sales_order_id', salesOrderId)
    .where((q) => q.whereNotNull('i.lot').orWhereNotNull('i.expiry_date'))
    .groupBy('i.article_id', 'i.lot', 'i.expiry_date');
  return rows.map((r) => ({ articleId: r.article_id, lot: r.lot ?? '', expiryDate: r.expiry_date ?? '', quantity: Number(r.total) }));
}

/** Per article: what earlier returns against the sales order took back, in thousandths. */
export async function returnedByArticle(tx: Knex, salesOrderId: number): Promise<Map<number, number>> {
  const rows: Array<{ article_id: number; total: number | string }> = await tx('return_items as i')
    .join('returns as r', 'r.id', 'i.return_id')
    .select('i.article_id')
    .sum({ total: 'i.quantity' })
    .where('r.sales_order_id', salesOrderId)
    .groupBy('i.article_id');
  return new Map(rows.map((r) => [r.article_id, Number(r.total)]));
}

export async function insertReturn(
  tx: Knex,
  fields: Omit<ReturnRow, 'id' | 'created_at' | 'updated_at'>,
  lines: Array<{ articleId: number; um3pl: string; quantity: number; stockType: StockType; lot: string; expiryDate: string }>,
): Promise<number> {
  const now = nowDb();
  const id = await insertReturningId(tx, 'returns', { ...fields, created_at: now, updated_at: now });
  await tx('return_items').insert(
    lines.map((l) => ({ return_id: id, article_id: l.articleId, um3pl: l.um3pl, quantity: l.quantity, stock_type: l.stockType, lot: l.lot || null, expiry_date: l.expiryDate || null })),
  );
  return id;
}
