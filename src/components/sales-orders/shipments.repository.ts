/** Shipments of sales orders and their lines: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type ShipmentResource = Schema<'Shipment'>;
export type ShipmentSummary = Schema<'ShipmentSummary'>;

export interface ShipmentRow {
  id: number;
  company_id: number;
  sales_order_id: number;
  carrier: string | null;
  service: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  internal_code: string | null;
  shipped_at: string | Date;
  created_at: string | Date;
  updated_at: string | Date;
}

interface ShipmentItemRow {
  id: number;
  shipment_id: number;
  sales_order_item_id: number;
  article_id: number;
  article_code: string;
  um3pl: string;
  quantity: number | string;
}

type LotQuantity = Schema<'LotQuantity'>;

/** What each shipment line took of each lot, by shipment line id, earliest expiry first. */
async function lotsOf(tx: Knex, itemIds: readonly number[]): Promise<Map<number, LotQuantity[]>> {
  const byItem = new Map<number, LotQuantity[]>();
  if (itemIds.length === 0) return byItem;
  const rows: Array<{ shipment_item_id: number; lot: string; expiry_date: string; quantity: number | string }> = await tx('shipment_item_lots')
    .select('shipment_item_id', 'lot', 'expiry_date', 'quantity')
    .whereIn('shipment_item_id', itemIds as number[])
    .orderBy('id');
  for (const r of rows) {
    const list = byItem.get(r.shipment_item_id) ?? [];
    list.push({ lot: r.lot || null, expiry_date: r.expiry_date || null, quantity_um3pl: toQuantity(Number(r.quantity)) });
    byItem.set(r.shipment_item_id, list);
  }
  return byItem;
}

async function withItems(tx: Knex, rows: ShipmentRow[]): Promise<ShipmentResource[]> {
  if (rows.length === 0) return [];
  const items = (await tx('shipment_items as s')
    .join('sales_order_items as i', 'i.id', 's.sales_order_item_id')
    .join('articles as a', 'a.id', 'i.article_id')
    .select('s.id', 's.shipment_id', 's.sales_order_item_id', 'i.article_id', 'a.article_code', 'i.um3pl', 's.quantity')
    .whereIn('s.shipment_id', rows.map((r) => r.id))
    .orderBy('s.id')) as ShipmentItemRow[];
  const lots = await lotsOf(tx, items.map((i) => i.id));
  return rows.map((r) => ({
    id: r.id,
    sales_order_id: r.sales_order_id,
    client_3pl_id: r.company_id,
    carrier: r.carrier,
    service: r.service,
    tracking_number: r.tracking_number,
    tracking_url: r.tracking_url,
    shipped_at: toApiTime(r.shipped_at),
    internal_code: r.internal_code,
    items: items
      .filter((i) => i.shipment_id === r.id)
      .map((i) => ({
        id: i.id,
        so_item_id: i.sales_order_item_id,
        article_id: i.article_id,
        article_code: i.article_code,
        um3pl: i.um3pl,
        quantity_um3pl: toQuantity(Number(i.quantity)),
        lots: lots.get(i.id) ?? [],
      })),
    created_at: toApiTime(r.created_at),
    updated_at: toApiTime(r.updated_at),
  }));
}

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('shipments').select('*'), scope, 'company_id');
}

export interface ShipmentFilters {
  salesOrderId?: number;
  trackingNumber?: string;
  updatedSince?: string;
}

function filtered(query: Knex.QueryBuilder, filters: ShipmentFilters): Knex.QueryBuilder {
  if (filters.salesOrderId !== undefined) query.where('sales_order_id', filters.salesOrderId);
  if (filters.trackingNumber !== undefined) query.where('tracking_number', filters.trackingNumber);
  if (filters.updatedSince !== undefined) query.where('updated_at', '>=', filters.updatedSince);
  return query;
}

/** A page of the shipments in scope, newest first. */
export async function listShipments(tx: Knex, scope: CompanyScope, filters: ShipmentFilters, page: PageRequest): Promise<Paged<ShipmentResource>> {
  const result = await paged(filtered(inScope(tx, scope), filters).orderBy('id', 'desc'), page, (row: ShipmentRow) => row);
  return { rows: await withItems(tx, result.rows), total: result.total };
}

/** Shipments with ids above `after`, by id (the GraphQL keyset). */
export async function shipmentsAfter(tx: Knex, scope: CompanyScope, filters: ShipmentFilters, options: { after?: number; limit: number }): Promise<ShipmentResource[]> {
  return withItems(tx, (await afterId(filtered(inScope(tx, scope), filters), options.after, options.limit)) as ShipmentRow[]);
}

export async function findShipment(tx: Knex, scope: CompanyScope, id: number): Promise<ShipmentResource | undefined> {
  const row = (await inScope(tx, scope).where('id', id).first()) as ShipmentRow | undefined;
  return row ? (await withItems(tx, [row]))[0] : undefined;
}

/** The shipments of each order (its `shipments`), oldest first. */
export async function summariesOf(tx: Knex, orderIds: readonly number[]): Promise<Map<number, ShipmentSummary[]>> {
  const rows = (await tx('shipments')
    .select('id', 'sales_order_id', 'carrier', 'tracking_number', 'tracking_url', 'shipped_at')
    .whereIn('sales_order_id', orderIds)
    .orderBy('id')) as Array<Pick<ShipmentRow, 'id' | 'sales_order_id' | 'carrier' | 'tracking_number' | 'tracking_url' | 'shipped_at'>>;
  const byOrder = new Map<number, ShipmentSummary[]>();
  for (const r of rows) {
    const list = byOrder.get(r.sales_order_id) ?? [];
    list.push({ id: r.id, carrier: r.carrier, tracking_number: r.tracking_number, tracking_url: r.tracking_url, shipped_at: toApiTime(r.shipped_at) });
    byOrder.set(r.sales_order_id, list);
  }
  return byOrder;
}

export type NewShipment = Omit<ShipmentRow, 'id' | 'created_at' | 'updated_at' | 'shipped_at'> & { shipped_at?: string };

/** Stores a shipment and its lines (thousandths); answers its id. */
export async function insertShipment(tx: Knex, fields: NewShipment, lines: ReadonlyArray<{ itemId: number; quantity: number }>): Promise<number> {
  const now = nowDb();
  const id = await insertReturningId(tx, 'shipments', { ...fields, shipped_at: fields.shipped_at ?? now, created_at: now, updated_at: now });
  await tx('shipment_items').insert(lines.map((l) => ({ shipment_id: id, sales_order_item_id: l.itemId, quantity: l.quantity })));
  return id;
}

/** The shipment's line ids by the order line each ships. */
export async function lineIdsOf(tx: Knex, shipmentId: number): Promise<Map<number, number>> {
  const rows: Array<{ id: number; sales_order_item_id: number }> = await tx('shipment_items').select('id', 'sales_order_item_id').where('shipment_id', shipmentId);
  return new Map(rows.map((r) => [r.sales_order_item_id, r.id]));
}

/** Records what shipment line `lineId` took of each lot (thousandths; '' for no lot or expiry). */
export async function insertLineLots(tx: Knex, lineId: number, lots: ReadonlyArray<{ lot: string; expiryDate: string; quantity: number }>): Promise<void> {
  await tx('shipment_item_lots').insert(lots.map((l) => ({ shipment_item_id: lineId, lot: l.lot, expiry_date: l.expiryDate, quantity: l.quantity })));
}
