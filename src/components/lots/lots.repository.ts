/**
 * The trace of a lot (GET /api/lots/trace) read from the stock ledger: the lot's movements, and
 * the sales orders and shipments of those that left for one. SQL only, always within the company scope.
 */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

type StockType = Schema<'StockType'>;
type MovementCause = Schema<'MovementCause'>;

/** A movement of the lot as stored (thousandths; `expiry_date` '' for none). */
export interface LotMovementRow {
  id: number | string;
  created_at: string | Date;
  warehouse_id: number;
  stock_type: StockType;
  expiry_date: string;
  delta: number | string;
  cause: MovementCause;
  document_kind: string;
  document_id: number;
}

/** The sales order (and shipment, when there is one) that took goods, with the partner they went to. */
export interface OutboundRow {
  /** The key it is found by: the shipment's id (cause `shipment`) or the sales order's (cause `delivery`). */
  key: number;
  shipment_id: number | null;
  sales_order_id: number;
  sales_order_internal_code: string;
  partner_id: number;
  partner_name: string;
  tracking_number: string | null;
  shipped_at: string | Date | null;
}

/** Every movement of `lot` of the article in scope, oldest first (the index on article, lot and id). */
export async function movementsOfLot(tx: Knex, scope: CompanyScope, articleId: number, lot: string): Promise<LotMovementRow[]> {
  const query = tx('stock_movements as m')
    .select('m.id', 'm.created_at', 'm.warehouse_id', 'm.stock_type', 'm.expiry_date', 'm.delta', 'm.cause', 'm.document_kind', 'm.document_id')
    .where('m.article_id', articleId)
    .where('m.lot', lot)
    .orderBy('m.id');
  return (await whereClientInScope(query, scope, 'm.company_id')) as LotMovementRow[];
}

function outbound(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  const query = tx('sales_orders as o')
    .join('partners as p', 'p.id', 'o.partner_id')
    .select('o.id as sales_order_id', 'o.internal_code as sales_order_internal_code', 'o.partner_id', 'p.name as partner_name');
  return whereClientInScope(query, scope, 'o.company_id');
}

/** The shipments `ids` in scope, each with its sales order and partner (keyed by the shipment's id). */
export async function shipmentsByIds(tx: Knex, scope: CompanyScope, ids: readonly number[]): Promise<OutboundRow[]> {
  if (ids.length === 0) return [];
  const rows = await outbound(tx, scope)
    .join('shipments as s', 's.sales_order_id', 'o.id')
    .select('s.id as key', 's.id as shipment_id', 's.tracking_number', 's.shipped_at')
    .whereIn('s.id', [...new Set(ids)]);
  return rows as OutboundRow[];
}

/**
 * The sales orders `ids` in scope with the shipment their delivery made (keyed by the order's id):
 * a move to `delivered` ships everything left and ends the order's shipping, so its shipment is
 * the order's last; none (null) for an order delivered with no shipment recorded.
 */
export async function deliveriesByOrders(tx: Knex, scope: CompanyScope, ids: readonly number[]): Promise<OutboundRow[]> {
  if (ids.length === 0) return [];
  const last = tx('shipments').select('sales_order_id').max({ id: 'id' }).whereIn('sales_order_id', [...new Set(ids)]).groupBy('sales_order_id').as('ls');
  const rows = await outbound(tx, scope)
    .leftJoin(last, 'ls.sales_order_id', 'o.id')
    .leftJoin('shipments as s', 's.id', 'ls.id')
    .select('o.id as key', 's.id as shipment_id', 's.tracking_number', 's.shipped_at')
    .whereIn('o.id', [...new Set(ids)]);
  return rows as OutboundRow[];
}
