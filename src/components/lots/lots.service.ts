/**
 * Lot traceability (GET /api/lots/trace): where one lot of one article came from and where it
 * went, read from the stock ledger and grouped by what moved it, with its balances now. One call
 * answers a recall.
 */
import { toQuantity } from '../../kernel/quantity.js';
import { toApiTime } from '../../kernel/time.js';
import { InputError } from '../../platform/errors.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import { findArticle } from '../articles/articles.service.js';
import { listStock, type StockLevel } from '../stock/stock.service.js';
import * as repository from './lots.repository.js';
import type { LotMovementRow, OutboundRow } from './lots.repository.js';

export type LotTrace = Schema<'LotTrace'>;
type LotTraceEntry = Schema<'LotTraceEntry'>;
type LotTraceShipment = Schema<'LotTraceShipment'>;
type Group = 'receptions' | 'shipments' | 'returns' | 'adjustments' | 'transfers';

const messages = {
  notInScope: (id: number) => `Article ${id} is not an article in scope: give the id of an article of a client in scope.`,
  untracked: (code: string) => `Article ${code} does not track lots (lot_tracked is false): it has no lots to trace.`,
  brokenReference: (kind: string, id: number, movement: number) => `Movement ${movement} names ${kind} ${id}, which was not found in scope.`,
};

/** The list of the trace each ledger cause goes to (a cause not named here is not a lot's history). */
const GROUP_OF: Partial<Record<Schema<'MovementCause'>, Group>> = {
  reception: 'receptions',
  reception_correction: 'receptions',
  shipment: 'shipments',
  delivery: 'shipments',
  return: 'returns',
  adjustment: 'adjustments',
  transfer: 'transfers',
};

/** Balances read per page while gathering the lot's rows (a lot has a row per warehouse, stock type and expiry date). */
const BALANCE_PAGE = 200;

function toEntry(row: LotMovementRow): LotTraceEntry {
  return {
    movement_id: Number(row.id),
    created_at: toApiTime(row.created_at),
    warehouse_id: row.warehouse_id,
    stock_type: row.stock_type,
    expiry_date: row.expiry_date ? row.expiry_date : null,
    delta: toQuantity(Number(row.delta)),
    document: { type: row.document_kind, id: row.document_id },
  };
}

function toShipment(row: LotMovementRow, outbound: OutboundRow | undefined): LotTraceShipment {
  const entry = toEntry(row);
  if (!outbound) throw new Error(messages.brokenReference(row.document_kind, row.document_id, entry.movement_id));
  return {
    ...entry,
    shipment_id: outbound.shipment_id,
    sales_order_id: outbound.sales_order_id,
    sales_order_internal_code: outbound.sales_order_internal_code,
    partner_id: outbound.partner_id,
    partner_name: outbound.partner_name,
    tracking_number: outbound.tracking_number,
    // A delivery with no shipment recorded left when its movement was made.
    shipped_at: outbound.shipped_at === null ? entry.created_at : toApiTime(outbound.shipped_at),
  };
}

/** Every stock row of the lot, as GET /api/stock lists them. */
async function lotBalances(ctx: TenantContext, articleId: number, lot: string): Promise<StockLevel[]> {
  const rows: StockLevel[] = [];
  for (let page = 1; ; page += 1) {
    const result = await listStock(ctx, { article_id: [articleId], lot }, { page, perPage: BALANCE_PAGE });
    rows.push(...result.rows);
    if (result.rows.length < BALANCE_PAGE || rows.length >= result.total) return rows;
  }
}

/**
 * The trace of `lot` of the article: a 422 on `article_id` when the article is not in scope or
 * tracks no lots; empty lists for a lot nobody received (a recall may name one that never arrived).
 */
export async function traceLot(ctx: TenantContext, articleId: number, lot: string): Promise<LotTrace> {
  const article = await findArticle(ctx, articleId);
  if (!article) throw InputError.field('article_id', messages.notInScope(articleId));
  if (!article.lot_tracked) throw InputError.field('article_id', messages.untracked(article.article_code));

  const movements = await repository.movementsOfLot(ctx.db, ctx.scope, articleId, lot);
  const idsOf = (cause: string) => movements.filter((m) => m.cause === cause).map((m) => m.document_id);
  const [shipped, delivered, balances] = await Promise.all([
    repository.shipmentsByIds(ctx.db, ctx.scope, idsOf('shipment')),
    repository.deliveriesByOrders(ctx.db, ctx.scope, idsOf('delivery')),
    lotBalances(ctx, articleId, lot),
  ]);
  const byShipment = new Map(shipped.map((r) => [r.key, r]));
  const byOrder = new Map(delivered.map((r) => [r.key, r]));

  const trace: LotTrace = {
    article_id: article.id,
    article_code: article.article_code,
    client_3pl_id: article.client_3pl_id,
    lot,
    receptions: [],
    shipments: [],
    returns: [],
    adjustments: [],
    transfers: [],
    balances,
  };
  for (const movement of movements) {
    const group = GROUP_OF[movement.cause];
    if (group === undefined) continue;
    if (group === 'shipments') {
      trace.shipments.push(toShipment(movement, (movement.cause === 'shipment' ? byShipment : byOrder).get(movement.document_id)));
    } else {
      trace[group].push(toEntry(movement));
    }
  }
  return trace;
}
