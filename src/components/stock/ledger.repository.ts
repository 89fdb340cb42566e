/** The stock ledger read as a feed: movements in their feed places (src/platform/feeds/sequencer.ts). SQL only. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import { toQuantity } from '../../kernel/quantity.js';
import { toApiTime } from '../../kernel/time.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type StockMovement = Schema<'StockMovement'>;

export interface MovementFilters {
  articleId?: number;
  warehouseId?: number;
  stockType?: Schema<'StockType'>;
  cause?: Schema<'MovementCause'>;
  lot?: string;
  /** Stored times, inclusive. */
  since?: string;
  until?: string;
}

interface MovementRow {
  id: number | string;
  created_at: string | Date;
  company_id: number;
  warehouse_id: number;
  article_id: number;
  article_code: string;
  stock_type: Schema<'StockType'>;
  lot: string;
  expiry_date: string;
  delta: number | string;
  quantity_after: number | string;
  cause: Schema<'MovementCause'>;
  document_kind: string;
  document_id: number;
}

function toMovement(row: MovementRow): StockMovement {
  return {
    id: Number(row.id),
    created_at: toApiTime(row.created_at),
    client_3pl_id: row.company_id,
    warehouse_id: row.warehouse_id,
    article_id: row.article_id,
    article_code: row.article_code,
    stock_type: row.stock_type,
    lot: row.lot ? row.lot : null,
    expiry_date: row.expiry_date ? row.expiry_date : null,
    delta: toQuantity(Number(row.delta)),
    quantity_after: toQuantity(Number(row.quantity_after)),
    cause: row.cause,
    document: { type: row.document_kind, id: row.document_id },
  };
}

/** The feed place of movement `id` when it has one and belongs to a client in scope. */
export async function placeOf(tx: Knex, scope: CompanyScope, id: number): Promise<number | undefined> {
  const row = await whereClientInScope(tx('stock_movements').select('feed_seq').where('id', id).whereNotNull('feed_seq'), scope, 'company_id').first();
  return row ? Number(row.feed_seq) : undefined;
}

/**
 * The place just before the first that can hold a movement created at or after `since`: every
 * place before the first whose horizon reaches `since` holds movements created before it. Undefined
 * when no placed movement reaches it yet.
 */
export async function placeBefore(tx: Knex, since: string): Promise<number | undefined> {
  const row = await tx('stock_movements').select('feed_seq').where('feed_horizon', '>=', since).orderBy([{ column: 'feed_horizon' }, { column: 'feed_seq' }]).first();
  return row ? Number(row.feed_seq) - 1 : undefined;
}

/** Up to `limit` movements in scope that pass the filters, after place `afterSeq`, in feed order. */
export async function movementsAfter(tx: Knex, scope: CompanyScope, options: { afterSeq: number; filters: MovementFilters; limit: number }): Promise<StockMovement[]> {
  const { filters } = options;
  const query = tx('stock_movements as m')
    .join('articles as a', 'a.id', 'm.article_id')
    .select('m.id', 'm.created_at', 'm.company_id', 'm.warehouse_id', 'm.article_id', 'a.article_code', 'm.stock_type', 'm.lot', 'm.expiry_date', 'm.delta', 'm.quantity_after', 'm.cause', 'm.document_kind', 'm.document_id')
    .where('m.feed_seq', '>', options.afterSeq)
    .orderBy('m.feed_seq')
    .limit(options.limit);
  whereClientInScope(query, scope, 'm.company_id');
  if (filters.articleId !== undefined) query.where('m.article_id', filters.articleId);
  if (filters.warehouseId !== undefined) query.where('m.warehouse_id', filters.warehouseId);
  if (filters.stockType !== undefined) query.where('m.stock_type', filters.stockType);
  if (filters.cause !== undefined) query.where('m.cause', filters.cause);
  if (filters.lot !== undefined) query.where('m.lot', filters.lot);
  if (filters.since !== undefined) query.where('m.created_at', '>=', filters.since);
  if (filters.until !== undefined) query.where('m.created_at', '<=', filters.until);
  return ((await query) as MovementRow[]).map(toMovement);
}
