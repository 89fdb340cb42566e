/**
 * Sales orders to client partners. An open order (new, picking, picked, partially_delivered)
 * reserves what its lines have left to ship on the stock of its warehouse and stock type; it may be
 * created beyond available stock (it then shows as backordered). Lines, warehouse and stock type
 * change only while the order is new. Shipments (shipments.service.ts), status moves
 * (sales-orders.status.ts) and holds (sales-orders.holds.ts) lock the order first.
 */
import type { Knex } from 'knex';
import { changedFields } from '../../kernel/changes.js';
import { clientInScope, type CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { InputError, NotFoundError } from '../../platform/errors.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { type EventType } from '../../platform/outbox.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { resolveLines, sameLines, type ResolvedLine } from '../documents/document-lines.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { Problems } from '../../platform/problems.js';
import { checkWarehouse, getPartner } from '../reference/reference.service.js';
import { expiredPins, inLockOrder, reserveStock } from '../stock/stock.service.js';
import { quoted } from '../../kernel/text.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrder, SalesOrderResource, SalesOrderRow } from './sales-orders.repository.js';
import type { LotQuantity } from '../../kernel/quantity.js';
import { leftToShip, OPEN_STATUSES, SHIPPED_STATUSES, type SalesOrderStatus } from './sales-orders.rules.js';

export type { SalesOrder, SalesOrderResource };

export const messages = {
  notFound: (id: number) => `Sales order ${id} was not found.`,
  notClientPartner: 'The partner_id must be a client partner of a client in scope.',
  otherClient: "The partner_id must be a client partner of the order's client.",
  codeTaken: codeTakenMessage('internal_code'),
  notReturnable: 'The sales_order_id must be a sales order of the same client that shipped goods (partially_delivered, delivered or closed).',
  notShipped: (id: number, status: SalesOrderStatus) =>
    `Sales order ${id} is ${status}; only an order that shipped something (partially_delivered, delivered or closed) can be returned against.`,
  onlyWhileNew: (field: string, status: SalesOrderStatus) => `The ${field} can change only while the order is new; it is ${status}.`,
  expiredPin: (lot: string, articleCode: string, expiredOn: string) =>
    `Lot ${quoted(lot)} of article ${articleCode} expired on ${expiredOn} in the order's warehouse and stock type: an expired lot is never reserved or shipped. Pin another lot, or leave lot out to take lots earliest expiry first.`,
};

/**
 * A 422 on the lot of each line pinned to a lot that has expired where the order takes its stock;
 * `moved`: the field of an order whose lines stay and whose warehouse or stock type changes, which
 * the 422 is on, naming the line.
 */
async function refuseExpiredPins(
  tx: Knex,
  place: Parameters<typeof expiredPins>[1],
  lines: Parameters<typeof expiredPins>[2],
  problems: Problems,
  moved?: 'source_warehouse_id' | 'stock_type',
): Promise<void> {
  for (const pin of await expiredPins(tx, place, lines)) {
    const message = messages.expiredPin(pin.lot, pin.articleCode, pin.expiredOn);
    if (moved) problems.add(moved, `Line ${pin.index} pins a lot that has expired there. ${message}`);
    else problems.add(`items.${pin.index}.lot`, message);
  }
}



/** The client partner in scope, or a 422 on partner_id. */
export async function clientPartner(ctx: TenantContext, partnerId: number): Promise<Schema<'Partner'>> {
  const partner = await getPartner(ctx, partnerId).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw InputError.field('partner_id', messages.notClientPartner);
    throw error;
  });
  if (partner.type !== 'client') throw InputError.field('partner_id', messages.notClientPartner);
  return partner;
}

/** What a line reserves: its article, how much (thousandths), its pinned lot (null or '' for none). */
export interface ReservedLine {
  article_id: number;
  article_code: string;
  quantity: number;
  lot: string | null;
  tracked: boolean;
}

/**
 * Reserves (sign 1) or releases (sign -1) every line of an order on its warehouse and stock type.
 * A reservation above the most a balance holds is a 422 on the line's quantity, or on `field` when
 * the reservation moves for another reason (a new warehouse or stock type).
 */
export async function reserveLines(
  tx: Knex.Transaction,
  order: Pick<SalesOrderRow, 'id' | 'company_id' | 'source_warehouse_id' | 'stock_type'>,
  lines: readonly ReservedLine[],
  sign: 1 | -1,
  field?: string,
): Promise<void> {
  for (const { line, index } of inLockOrder(lines, (l) => ({ articleId: l.article_id }))) {
    const key = {
      clientId: order.company_id,
      warehouseId: order.source_warehouse_id,
      articleId: line.article_id,
      stockType: order.stock_type,
      articleCode: line.article_code,
      lot: line.lot ?? '',
      tracked: line.tracked,
    };
    await reserveStock(tx, key, sign * line.quantity, { kind: 'sales_order', id: order.id }, field ?? `items.${index}.quantity_um3pl`);
  }
}

export async function requireOrder(db: Knex, scope: CompanyScope, id: number): Promise<SalesOrder> {
  const order = await repository.findOrder(db, scope, id);
  if (!order) throw new NotFoundError(messages.notFound(id));
  return order;
}

/**
 * First thing in a transaction that changes the order: locks it (writers of one order queue up)
 * and reads it as the last writer left it; 404 when it is not in scope.
 */
export async function lockedOrder(tx: Knex.Transaction, scope: CompanyScope, id: number): Promise<SalesOrder> {
  if (!(await repository.lockOrder(tx, id, scope))) throw new NotFoundError(messages.notFound(id));
  return (await repository.findOrder(tx, scope, id))!;
}

/** What each line of the order has left to ship (what it reserves while the order is open), lines with nothing left omitted. */
export function linesLeft(order: SalesOrder): ReservedLine[] {
  return order.items.map((i) => ({ article_id: i.article_id, article_code: i.article_code, quantity: leftToShip(i), lot: i.lot, tracked: i.tracked })).filter((l) => l.quantity > 0);
}

/** Runs `work` as a document write (documents/document-writes.ts) answering the order as it now is. */
export function writeOrder(
  ctx: TenantContext,
  type: EventType,
  work: (tx: Knex.Transaction) => Promise<number | { id: number; changed: boolean }>,
): Promise<SalesOrderResource> {
  return writeDocument(ctx.db, {
    type,
    codeField: 'internal_code',
    work,
    reread: async (tx, id) => repository.toSalesOrder((await repository.findOrder(tx, ctx.scope, id))!),
    companyOf: (order) => order.client_3pl_id,
  });
}

function asLines(lines: ResolvedLine[]): ReservedLine[] {
  return lines.map((l) => ({ article_id: l.articleId, article_code: l.articleCode, quantity: l.quantity, lot: l.lot, tracked: l.tracked }));
}

/** The filters of GET /api/sales-orders, as its query names them (GraphQL's `sales_orders` takes the same). */
export interface SalesOrderListFilters {
  status?: SalesOrderStatus;
  partner_id?: number;
  internal_code?: string;
  updated_since?: string;
}

const repositoryFilters = ({ updated_since, ...rest }: SalesOrderListFilters): repository.SalesOrderFilters => ({ ...rest, updatedSince: inputTime(updated_since) });

export function listSalesOrders(ctx: TenantContext, filters: SalesOrderListFilters, page: PageRequest): Promise<Paged<SalesOrderResource>> {
  return repository.listOrders(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function salesOrdersAfter(ctx: TenantContext, filters: SalesOrderListFilters, options: { after?: number; limit: number }): Promise<SalesOrderResource[]> {
  return repository.ordersAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

export async function getSalesOrder(ctx: TenantContext, id: number): Promise<SalesOrderResource> {
  return repository.toSalesOrder(await requireOrder(ctx.db, ctx.scope, id));
}

/** The order, or undefined when it is not in scope. */
export async function findSalesOrder(ctx: TenantContext, id: number): Promise<SalesOrderResource | undefined> {
  const order = await repository.findOrder(ctx.db, ctx.scope, id);
  return order ? repository.toSalesOrder(order) : undefined;
}

/**
 * Creates an order and its reservation: its partner, warehouse, lines and code are checked in the
 * transaction that writes them (the lines' articles locked in share mode), every problem at once.
 */
export async function createSalesOrder(ctx: TenantContext, body: Schema<'SalesOrderCreate'>): Promise<SalesOrderResource> {
  const scope = companyScope(ctx);
  return writeOrder(ctx, 'sales_order.created', async (tx) => {
    const problems = new Problems();
    const using = { ...ctx, db: tx };
    const partner = await problems.collect(clientPartner(using, body.partner_id));
    await checkWarehouse(using, body.source_warehouse_id, 'source_warehouse_id', problems);
    const clientId = partner?.client_3pl_id ?? clientInScope(scope);
    const lines = await resolveLines(tx, { clientId, clientIds: scope.clientIds, providerId: scope.providerId }, body.items, { problems, lots: 'pin' });
    if (clientId !== undefined) await refuseExpiredPins(tx, { clientId, warehouseId: body.source_warehouse_id, stockType: body.stock_type ?? 'STOC_OK' }, lines, problems);
    if (clientId !== undefined && (await codeTaken(tx, 'sales_orders', 'internal_code', clientId, body.internal_code))) problems.add('internal_code', messages.codeTaken);
    problems.throwIfAny();
    const fields = {
      company_id: partner!.client_3pl_id,
      partner_id: partner!.id,
      source_warehouse_id: body.source_warehouse_id,
      stock_type: body.stock_type ?? 'STOC_OK',
      internal_code: body.internal_code,
      notes: body.notes ?? null,
      external_reference: body.external_reference ?? null,
    } as const;
    const id = await repository.insertOrder(tx, fields);
    await repository.insertItems(tx, id, lines);
    await repository.addHistory(tx, id, 'new', userOf(ctx));
    await reserveLines(tx, { ...fields, id }, asLines(lines), 1);
    return id;
  });
}

/**
 * Header fields change at any time; the partner, warehouse, stock type and lines only while the
 * order is new. The order's row is locked first (a plain read before it would, on MySQL/MariaDB,
 * fix a snapshot older than a concurrent move), and every check reads the order as it then is.
 */
export async function updateSalesOrder(ctx: TenantContext, id: number, body: Schema<'SalesOrderUpdate'>): Promise<SalesOrderResource> {
  const scope = companyScope(ctx);
  await requireOrder(ctx.db, ctx.scope, id);
  return writeOrder(ctx, 'sales_order.updated', async (tx) => {
    await repository.lockOrder(tx, id);
    const order = (await repository.findOrder(tx, ctx.scope, id))!;
    const using = { ...ctx, db: tx };
    const problems = new Problems();
    const changes: Partial<SalesOrderRow> = {};
    const whileNew = (field: string): boolean => {
      if (order.status !== 'new') problems.add(field, messages.onlyWhileNew(field, order.status));
      return order.status === 'new';
    };
    if (body.partner_id !== undefined && body.partner_id !== order.partner_id && whileNew('partner_id')) {
      const partner = await problems.collect(clientPartner(using, body.partner_id));
      if (partner && partner.client_3pl_id !== order.company_id) problems.add('partner_id', messages.otherClient);
      else if (partner) changes.partner_id = partner.id;
    }
    if (body.source_warehouse_id !== undefined && body.source_warehouse_id !== order.source_warehouse_id && whileNew('source_warehouse_id')) {
      await checkWarehouse(using, body.source_warehouse_id, 'source_warehouse_id', problems);
      changes.source_warehouse_id = body.source_warehouse_id;
    }
    if (body.stock_type !== undefined && body.stock_type !== order.stock_type && whileNew('stock_type')) changes.stock_type = body.stock_type;
    if (body.internal_code !== undefined) {
      if (await codeTaken(tx, 'sales_orders', 'internal_code', order.company_id, body.internal_code, id)) problems.add('internal_code', messages.codeTaken);
      else changes.internal_code = body.internal_code;
    }
    if (body.notes !== undefined) changes.notes = body.notes;
    if (body.external_reference !== undefined) changes.external_reference = body.external_reference;
    let lines: ResolvedLine[] | undefined;
    if (body.items !== undefined) {
      const context = { clientId: order.company_id, clientIds: scope.clientIds, providerId: scope.providerId };
      lines = await resolveLines(tx, context, body.items, { problems, kept: new Set(order.items.map((i) => i.article_id)), lots: 'pin' });
      // The lines the order has, sent again (an ERP re-sending its order), change nothing at any
      // status: the lines keep their ids (the so_item_id of shipments) and their reservation.
      if (sameLines(lines, order.items) || !whileNew('items')) lines = undefined;
    }
    const moved = changes.source_warehouse_id !== undefined ? 'source_warehouse_id' : changes.stock_type !== undefined ? 'stock_type' : undefined;
    if (lines || moved) {
      // A pinned lot is judged where the order will take it from: new lines, or its lines moved.
      const place = { clientId: order.company_id, warehouseId: changes.source_warehouse_id ?? order.source_warehouse_id, stockType: changes.stock_type ?? order.stock_type };
      const kept = order.items.map((item, index) => ({ index, articleId: item.article_id, articleCode: item.article_code, lot: item.lot ?? '' }));
      await refuseExpiredPins(tx, place, lines ?? kept, problems, lines ? undefined : moved);
    }
    problems.throwIfAny();
    if (!lines && Object.keys(changedFields(order, changes)).length === 0) return { id, changed: false };
    if (lines !== undefined || changes.source_warehouse_id !== undefined || changes.stock_type !== undefined) {
      // The reservation follows the lines, warehouse and stock type: release what the order holds now, reserve the new.
      await reserveLines(tx, order, linesLeft(order), -1);
      if (lines) {
        await repository.deleteItems(tx, id);
        await repository.insertItems(tx, id, lines);
      }
      await reserveLines(tx, { ...order, ...changes }, lines ? asLines(lines) : linesLeft(order), 1, lines ? undefined : moved);
    }
    await repository.updateOrder(tx, id, changes);
    return { id, changed: true };
  });
}

/** The article's lines on open orders (new, picking, picked, partially_delivered): what each holds (ordered, delivered), in thousandths. */
export async function openLinesOfArticle(tx: Knex, articleId: number): Promise<Array<{ document: string; quantities: number[] }>> {
  const lines = await repository.linesOfArticle(tx, articleId, OPEN_STATUSES);
  return lines.map((l) => ({ document: `sales order ${l.internal_code}`, quantities: [l.quantity, l.delivered_quantity] }));
}

/**
 * For a return against sales order `id`, first thing in the caller's transaction: locks the order
 * (concurrent returns and shipments of it wait their turn) and answers its client, the partner it
 * went to and what its shipments delivered: per article, and per lot and expiry date of articles
 * that track either, in thousandths. A 422 on sales_order_id when it is not an order in scope that
 * shipped something (partially_delivered, delivered or closed).
 */
export async function lockReturnableOrder(
  tx: Knex.Transaction,
  scope: CompanyScope,
  id: number,
): Promise<{ clientId: number; partnerId: number; delivered: Array<{ articleId: number; um3pl: string; quantity: number }>; deliveredLots: LotQuantity[] }> {
  await repository.lockOrder(tx, id, scope);
  const order = await repository.findOrder(tx, scope, id);
  if (!order) throw InputError.field('sales_order_id', messages.notReturnable);
  if (!SHIPPED_STATUSES.includes(order.status)) throw InputError.field('sales_order_id', messages.notShipped(id, order.status));
  return {
    clientId: order.company_id,
    partnerId: order.partner_id,
    delivered: await repository.deliveredByArticle(tx, id),
    deliveredLots: await repository.shippedByLot(tx, id),
  };
}
