/** Receptions and their lines: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type ReceptionResource = Schema<'Reception'>;

export interface ReceptionRow {
  id: number;
  company_id: number;
  purchase_order_id: number;
  warehouse_id: number;
  internal_code: string | null;
  notes: string | null;
  external_reference: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface ReceptionItemRow {
  id: number;
  reception_id: number;
  po_item_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  quantity: number;
  /** As stored: null when the article tracks no lots (or no expiry dates). */
  lot: string | null;
  expiry_date: string | null;
}

export interface Reception extends ReceptionRow {
  items: ReceptionItemRow[];
}

export function toReception(reception: Reception): ReceptionResource {
  return {
    id: reception.id,
    client_3pl_id: reception.company_id,
    purchase_order_id: reception.purchase_order_id,
    warehouse_id: reception.warehouse_id,
    internal_code: reception.internal_code,
    notes: reception.notes,
    external_reference: reception.external_reference,
    items: reception.items.map((i) => ({
      id: i.id,
      po_item_id: i.po_item_id,
      article_id: i.article_id,
      article_code: i.article_code,
      um3pl: i.um3pl,
      quantity_um3pl: toQuantity(i.quantity),
      lot: i.lot || null,
      expiry_date: i.expiry_date || null,
    })),
    created_at: toApiTime(reception.created_at),
    updated_at: toApiTime(reception.updated_at),
  };
}

async function withItems(tx: Knex, receptions: ReceptionRow[]): Promise<Reception[]> {
  if (receptions.length === 0) return [];
  const items = (await tx('reception_items as i')
    .join('articles as a', 'a.id', 'i.article_id')
    .select('i.id', 'i.reception_id', 'i.po_item_id', 'i.article_id', 'a.article_code', 'i.um3pl', 'i.quantity', 'i.lot', 'i.expiry_date')
    .whereIn('i.reception_id', receptions.map((r) => r.id))
    .orderBy('i.id')) as ReceptionItemRow[];
  return receptions.map((r) => ({
    ...r,
    items: items.filter((i) => i.reception_id === r.id).map((i) => ({ ...i, quantity: Number(i.quantity) })),
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('receptions').select('*'), scope, 'company_id');
}

export interface ReceptionFilters {
  purchase_order_id?: number;
  updatedSince?: string;
}

function filtered(query: Knex.QueryBuilder, filters: ReceptionFilters): Knex.QueryBuilder {
  if (filters.purchase_order_id !== undefined) query.where('purchase_order_id', filters.purchase_order_id);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

export async function listReceptions(tx: Knex, scope: CompanyScope, filters: ReceptionFilters, page: PageRequest): Promise<Paged<ReceptionResource>> {
  const result = await paged(filtered(inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: ReceptionRow) => row);
  return { rows: (await withItems(tx, result.rows)).map(toReception), total: result.total };
}

export async function findReception(tx: Knex, scope: CompanyScope, id: number): Promise<Reception | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as ReceptionRow | undefined;
  return row ? (await withItems(tx, [row]))[0] : undefined;
}


export async function insertReception(
  tx: Knex,
  fields: Omit<ReceptionRow, 'id' | 'created_at' | 'updated_at'>,
  lines: Array<{ poItemId: number; articleId: number; um3pl: string; quantity: number; lot: string; expiryDate: string }>,
): Promise<number> {
  const now = nowDb();
  const id = await insertReturningId(tx, 'receptions', { ...fields, created_at: now, updated_at: now });
  await tx('reception_items').insert(
    lines.map((l) => ({
      reception_id: id,
      po_item_id: l.poItemId,
      article_id: l.articleId,
      um3pl: l.um3pl,
      quantity: l.quantity,
      lot: l.lot || null,
      expiry_date: l.expiryDate || null,
    })),
  );
  return id;
}

export async function updateReception(tx: Knex, id: number, changes: Partial<ReceptionRow>): Promise<void> {
  await tx('receptions').where('id', id).update({ ...changes, updated_at: nowDb() });
}

export async function setItemQuantity(tx: Knex, itemId: number, quantity: number): Promise<void> {
  await tx('reception_items').where('id', itemId).update({ quantity });
}

/** Receptions with ids above `after`, by id (the GraphQL keyset), with the list's filters. */
export async function receptionsAfter(tx: Knex, scope: CompanyScope, filters: ReceptionFilters, options: { after?: number; limit: number }): Promise<ReceptionResource[]> {
  return (await withItems(tx, (await afterId(filtered(inScope(tx, scope), filters), options.after, options.limit)) as ReceptionRow[])).map(toReception);
}
