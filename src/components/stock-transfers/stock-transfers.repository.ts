/** Stock transfers and their lines: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import { lineRowsByDocument } from '../documents/document-line-rows.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type StockTransfer = Schema<'StockTransfer'>;
type StockType = Schema<'StockType'>;

interface TransferRow {
  id: number;
  company_id: number;
  note: string | null;
  internal_code: string | null;
  user_id: number | null;
  created_at: string | Date;
  updated_at: string | Date;
}

interface ItemRow {
  id: number;
  transfer_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  quantity: number | string;
  from_warehouse_id: number;
  from_stock_type: StockType;
  to_warehouse_id: number;
  to_stock_type: StockType;
  lot: string | null;
  expiry_date: string | null;
}

/** A line as stored (quantity in thousandths). */
export interface TransferLine {
  articleId: number;
  um3pl: string;
  quantity: number;
  from: { warehouseId: number; stockType: StockType };
  to: { warehouseId: number; stockType: StockType };
  /** The lot and expiry date of the stock that moves, as the stock key stores them ('' for none); the same at both places. */
  lot: string;
  expiryDate: string;
}

async function withItems(tx: Knex, rows: TransferRow[]): Promise<StockTransfer[]> {
  if (rows.length === 0) return [];
  const items = await lineRowsByDocument<ItemRow>(tx, 'stock_transfer_items', 'transfer_id', rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id,
    client_3pl_id: r.company_id,
    note: r.note,
    internal_code: r.internal_code,
    items: items.get(r.id)!.map((i) => ({
      id: i.id,
      article_id: i.article_id,
      article_code: i.article_code,
      um3pl: i.um3pl,
      quantity_um3pl: toQuantity(Number(i.quantity)),
      from: { warehouse_id: i.from_warehouse_id, stock_type: i.from_stock_type },
      to: { warehouse_id: i.to_warehouse_id, stock_type: i.to_stock_type },
      lot: i.lot || null,
      expiry_date: i.expiry_date || null,
    })),
    created_at: toApiTime(r.created_at),
    updated_at: toApiTime(r.updated_at),
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('stock_transfers').select('*'), scope, 'company_id');
}

export interface TransferFilters {
  /** Transfers with a line from or to this warehouse. */
  warehouseId?: number;
  internalCode?: string;
  updatedSince?: string;
}

function filtered(tx: Knex, query: Knex.QueryBuilder, filters: TransferFilters): Knex.QueryBuilder {
  if (filters.warehouseId !== undefined) {
    const touching = tx('stock_transfer_items')
      .select('transfer_id')
      .where((q) => q.where('from_warehouse_id', filters.warehouseId!).orWhere('to_warehouse_id', filters.warehouseId!));
    query.whereIn('id', touching);
  }
  if (filters.internalCode !== undefined) query.where('internal_code', filters.internalCode);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

/** A page of the transfers in scope, newest first. */
export async function listTransfers(tx: Knex, scope: CompanyScope, filters: TransferFilters, page: PageRequest): Promise<Paged<StockTransfer>> {
  const result = await paged(filtered(tx, inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: TransferRow) => row);
  return { rows: await withItems(tx, result.rows), total: result.total };
}

/** Transfers with ids above `after`, by id (the GraphQL keyset), with the list's filters. */
export async function transfersAfter(tx: Knex, scope: CompanyScope, filters: TransferFilters, options: { after?: number; limit: number }): Promise<StockTransfer[]> {
  return withItems(tx, (await afterId(filtered(tx, inScope(tx, scope), filters), options.after, options.limit)) as TransferRow[]);
}

export async function findTransfer(tx: Knex, scope: CompanyScope, id: number): Promise<StockTransfer | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as TransferRow | undefined;
  return row ? (await withItems(tx, [row]))[0] : undefined;
}

export async function insertTransfer(tx: Knex, fields: Omit<TransferRow, 'id' | 'created_at' | 'updated_at'>, lines: readonly TransferLine[]): Promise<number> {
  const now = nowDb();
  const id = await insertReturningId(tx, 'stock_transfers', { ...fields, created_at: now, updated_at: now });
  await tx('stock_transfer_items').insert(
    lines.map((l) => ({
      transfer_id: id,
      article_id: l.articleId,
      um3pl: l.um3pl,
      quantity: l.quantity,
      from_warehouse_id: l.from.warehouseId,
      from_stock_type: l.from.stockType,
      to_warehouse_id: l.to.warehouseId,
      to_stock_type: l.to.stockType,
      lot: l.lot || null,
      expiry_date: l.expiryDate || null,
    })),
  );
  return id;
}
