/** Stock adjustments and their lines: SQL only, always within the company scope. */
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

export type StockAdjustment = Schema<'StockAdjustment'>;
type Reason = Schema<'StockAdjustmentReason'>;
type StockType = Schema<'StockType'>;

interface AdjustmentRow {
  id: number;
  company_id: number;
  warehouse_id: number;
  reason: Reason;
  note: string | null;
  internal_code: string | null;
  user_id: number | null;
  created_at: string | Date;
  updated_at: string | Date;
}

interface ItemRow {
  id: number;
  adjustment_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  stock_type: StockType;
  lot: string | null;
  expiry_date: string | null;
  counted: number | string | null;
  delta: number | string;
  quantity_before: number | string;
  quantity_after: number | string;
}

/** A line as applied, in thousandths. */
export interface AppliedLine {
  articleId: number;
  um3pl: string;
  stockType: StockType;
  /** As the stock key stores them ('' for none). */
  lot: string;
  expiryDate: string;
  counted: number | null;
  delta: number;
  before: number;
}

async function withItems(tx: Knex, rows: AdjustmentRow[]): Promise<StockAdjustment[]> {
  if (rows.length === 0) return [];
  const items = await lineRowsByDocument<ItemRow>(tx, 'stock_adjustment_items', 'adjustment_id', rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id,
    client_3pl_id: r.company_id,
    warehouse_id: r.warehouse_id,
    reason: r.reason,
    note: r.note,
    internal_code: r.internal_code,
    items: items.get(r.id)!.map((i) => ({
      id: i.id,
      article_id: i.article_id,
      article_code: i.article_code,
      um3pl: i.um3pl,
      stock_type: i.stock_type,
      lot: i.lot || null,
      expiry_date: i.expiry_date || null,
      counted_um3pl: i.counted === null ? null : toQuantity(Number(i.counted)),
      delta_um3pl: toQuantity(Number(i.delta)),
      quantity_before: toQuantity(Number(i.quantity_before)),
      quantity_after: toQuantity(Number(i.quantity_after)),
    })),
    created_at: toApiTime(r.created_at),
    updated_at: toApiTime(r.updated_at),
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('stock_adjustments').select('*'), scope, 'company_id');
}

export interface AdjustmentFilters {
  warehouseId?: number;
  reason?: Reason;
  internalCode?: string;
  updatedSince?: string;
}

function filtered(query: Knex.QueryBuilder, filters: AdjustmentFilters): Knex.QueryBuilder {
  if (filters.warehouseId !== undefined) query.where('warehouse_id', filters.warehouseId);
  if (filters.reason !== undefined) query.where('reason', filters.reason);
  if (filters.internalCode !== undefined) query.where('internal_code', filters.internalCode);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

/** A page of the adjustments in scope, newest first. */
export async function listAdjustments(tx: Knex, scope: CompanyScope, filters: AdjustmentFilters, page: PageRequest): Promise<Paged<StockAdjustment>> {
  const result = await paged(filtered(inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: AdjustmentRow) => row);
  return { rows: await withItems(tx, result.rows), total: result.total };
}

/** Adjustments with ids above `after`, by id (the GraphQL keyset), with the list's filters. */
export async function adjustmentsAfter(tx: Knex, scope: CompanyScope, filters: AdjustmentFilters, options: { after?: number; limit: number }): Promise<StockAdjustment[]> {
  return withItems(tx, (await afterId(filtered(inScope(tx, scope), filters), options.after, options.limit)) as AdjustmentRow[]);
}

export async function findAdjustment(tx: Knex, scope: CompanyScope, id: number): Promise<StockAdjustment | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as AdjustmentRow | undefined;
  return row ? (await withItems(tx, [row]))[0] : undefined;
}

export async function insertAdjustment(tx: Knex, fields: Omit<AdjustmentRow, 'id' | 'created_at' | 'updated_at'>): Promise<number> {
  const now = nowDb();
  return insertReturningId(tx, 'stock_adjustments', { ...fields, created_at: now, updated_at: now });
}

export async function insertItems(tx: Knex, adjustmentId: number, lines: readonly AppliedLine[]): Promise<void> {
  await tx('stock_adjustment_items').insert(
    lines.map((l) => ({
      adjustment_id: adjustmentId,
      article_id: l.articleId,
      um3pl: l.um3pl,
      stock_type: l.stockType,
      lot: l.lot || null,
      expiry_date: l.expiryDate || null,
      counted: l.counted,
      delta: l.delta,
      quantity_before: l.before,
      quantity_after: l.before + l.delta,
    })),
  );
}
