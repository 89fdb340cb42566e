/**
 * Purchase orders to supplier partners. The client of an order is its supplier's client; its lines
 * follow the document-line rules; its status follows from what receptions received. Lines change
 * and the order is cancelled only while nothing is received; a partially received order may be
 * short-closed (`closed`), after which nothing more is received against it.
 */
import type { Knex } from 'knex';
import { changedFields } from '../../kernel/changes.js';
import { clientInScope, type CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { InputError, NotFoundError } from '../../platform/errors.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { recordEvent } from '../../platform/outbox.js';
import { companyScope, type TenantContext } from '../../platform/tenant-context.js';
import { resolveLines, sameLines, type ResolvedLine } from '../documents/document-lines.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { Problems } from '../../platform/problems.js';
import { getPartner } from '../reference/reference.service.js';
import * as repository from './purchase-orders.repository.js';
import type { Order, OrderRow, PurchaseOrder } from './purchase-orders.repository.js';
import { anythingReceived, deriveStatus, OPEN_STATUSES, statusChangeRefusal } from './purchase-orders.rules.js';

export type { Order, PurchaseOrder };

const messages = {
  notFound: (id: number) => `Purchase order ${id} was not found.`,
  notSupplier: 'The partner_id must be a supplier partner of a client in scope.',
  otherClient: "The partner_id must be a supplier of the order's client.",
  codeTaken: codeTakenMessage('internal_code'),
  linesLocked: (status: string) => `The lines can change only while nothing is received; the order is ${status}.`,
  cancelled: 'The order is cancelled; its lines can no longer change.',
  changingStatus: (status: string) => `The order is being ${status} by this update; its lines cannot change with it.`,
};


/** The supplier partner in scope, or a 422 on partner_id. */
async function supplier(ctx: TenantContext, partnerId: number): Promise<Schema<'Partner'>> {
  const partner = await getPartner(ctx, partnerId).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw InputError.field('partner_id', messages.notSupplier);
    throw error;
  });
  if (partner.type !== 'supplier') throw InputError.field('partner_id', messages.notSupplier);
  return partner;
}

/**
 * Runs `work` in a transaction; when it changed the order, records `type` with the order as it
 * then is. Answers the order.
 */
async function write(
  ctx: TenantContext,
  type: 'purchase_order.created' | 'purchase_order.updated',
  work: (tx: Knex.Transaction) => Promise<{ id: number; changed: boolean }>,
): Promise<PurchaseOrder> {
  return writeDocument(ctx.db, {
    type,
    codeField: 'internal_code',
    work,
    reread: async (tx, id) => repository.toPurchaseOrder((await repository.findOrder(tx, ctx.scope, id))!),
    companyOf: (order) => order.client_3pl_id,
  });
}

/** The filters of GET /api/purchase-orders, as its query names them (GraphQL's `purchase_orders` takes the same). */
export interface PurchaseOrderListFilters {
  status?: Schema<'PurchaseOrderStatus'>;
  partner_id?: number;
  internal_code?: string;
  updated_since?: string;
}

const repositoryFilters = ({ updated_since, ...rest }: PurchaseOrderListFilters): repository.OrderFilters => ({ ...rest, updatedSince: inputTime(updated_since) });

export async function listPurchaseOrders(ctx: TenantContext, filters: PurchaseOrderListFilters, page: PageRequest): Promise<Paged<PurchaseOrder>> {
  return repository.listOrders(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function purchaseOrdersAfter(ctx: TenantContext, filters: PurchaseOrderListFilters, options: { after?: number; limit: number }): Promise<PurchaseOrder[]> {
  return repository.ordersAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

export async function requireOrder(db: Knex, scope: CompanyScope, id: number): Promise<Order> {
  const order = await repository.findOrder(db, scope, id);
  if (!order) throw new NotFoundError(messages.notFound(id));
  return order;
}

/** One purchase order in scope, or undefined (GraphQL's `purchase_order`). */
export async function findPurchaseOrder(ctx: TenantContext, id: number): Promise<PurchaseOrder | undefined> {
  const order = await repository.findOrder(ctx.db, ctx.scope, id);
  return order ? repository.toPurchaseOrder(order) : undefined;
}

export async function getPurchaseOrder(ctx: TenantContext, id: number): Promise<PurchaseOrder> {
  return repository.toPurchaseOrder(await requireOrder(ctx.db, ctx.scope, id));
}

/**
 * Creates an order: its partner, lines and code are checked in the transaction that writes them
 * (the lines' articles locked in share mode, document-lines.ts), every problem answered at once.
 */
export async function createPurchaseOrder(ctx: TenantContext, body: Schema<'PurchaseOrderCreate'>): Promise<PurchaseOrder> {
  const scope = companyScope(ctx);
  return write(ctx, 'purchase_order.created', async (tx) => {
    const problems = new Problems();
    const partner = await problems.collect(supplier({ ...ctx, db: tx }, body.partner_id));
    const clientId = partner?.client_3pl_id ?? clientInScope(scope);
    const lines = await resolveLines(tx, { clientId, clientIds: scope.clientIds, providerId: scope.providerId }, body.items, { problems });
    if (clientId !== undefined && (await codeTaken(tx, 'purchase_orders', 'internal_code', clientId, body.internal_code))) problems.add('internal_code', messages.codeTaken);
    problems.throwIfAny();
    const id = await repository.insertOrder(tx, {
      company_id: partner!.client_3pl_id,
      partner_id: partner!.id,
      internal_code: body.internal_code,
      notes: body.notes ?? null,
      external_reference: body.external_reference ?? null,
    });
    await repository.insertItems(tx, id, lines);
    return { id, changed: true };
  });
}

/**
 * Header fields change at any time; the lines and the cancellation only while nothing is
 * received. The order's row is locked first, and every check reads the order as it then is.
 */
export async function updatePurchaseOrder(ctx: TenantContext, id: number, body: Schema<'PurchaseOrderUpdate'>): Promise<PurchaseOrder> {
  const scope = companyScope(ctx);
  await requireOrder(ctx.db, ctx.scope, id);
  return write(ctx, 'purchase_order.updated', async (tx) => {
    await repository.lockOrder(tx, id);
    const order = (await repository.findOrder(tx, ctx.scope, id))!;
    const progress = order.items.map((i) => ({ quantity: i.quantity, received: i.received_quantity }));
    const problems = new Problems();
    const changes: Partial<OrderRow> = {};
    if (body.partner_id !== undefined && body.partner_id !== order.partner_id) {
      const partner = await problems.collect(supplier({ ...ctx, db: tx }, body.partner_id));
      if (partner && partner.client_3pl_id !== order.company_id) problems.add('partner_id', messages.otherClient);
      else if (partner) changes.partner_id = partner.id;
    }
    if (body.internal_code !== undefined) {
      if (await codeTaken(tx, 'purchase_orders', 'internal_code', order.company_id, body.internal_code, id)) problems.add('internal_code', messages.codeTaken);
      else changes.internal_code = body.internal_code;
    }
    if (body.notes !== undefined) changes.notes = body.notes;
    if (body.external_reference !== undefined) changes.external_reference = body.external_reference;
    if (body.status !== undefined) {
      const refusal = statusChangeRefusal(order.status, body.status, progress);
      if (refusal) problems.add('status', refusal);
      else changes.status = body.status;
    }
    let lines: ResolvedLine[] | undefined;
    if (body.items !== undefined) {
      const context = { clientId: order.company_id, clientIds: scope.clientIds, providerId: scope.providerId };
      lines = await resolveLines(tx, context, body.items, { problems, kept: new Set(order.items.map((i) => i.article_id)) });
      // The lines the order has, sent again (an ERP re-sending its order), change nothing at any
      // status: the lines keep their ids (the po_item_id of receptions).
      if (sameLines(lines, order.items)) lines = undefined;
      else if (order.status === 'cancelled') problems.add('items', messages.cancelled);
      else if (body.status !== undefined && body.status !== order.status) problems.add('items', messages.changingStatus(body.status));
      else if (anythingReceived(progress)) problems.add('items', messages.linesLocked(order.status));
    }
    problems.throwIfAny();
    if (!lines && Object.keys(changedFields(order, changes)).length === 0) return { id, changed: false };
    if (lines) {
      await repository.deleteUnreceivedItems(tx, id);
      await repository.insertItems(tx, id, lines);
    }
    await repository.updateOrder(tx, id, changes);
    return { id, changed: true };
  });
}

/** The article's lines on open orders (open, partially received): what each holds, ordered and received, in thousandths. */
export async function openLinesOfArticle(tx: Knex, articleId: number): Promise<Array<{ document: string; quantities: number[] }>> {
  const lines = await repository.linesOfArticle(tx, articleId, OPEN_STATUSES);
  return lines.map((l) => ({ document: `purchase order ${l.internal_code}`, quantities: [l.quantity, l.received_quantity] }));
}

/**
 * Locks the order's row, first thing in a transaction that changes the order or its lines
 * (receptions, corrections, updates): on MySQL/MariaDB the foreign-key locks of their inserts
 * would otherwise deadlock two writers of one order.
 */
export function lockPurchaseOrder(tx: Knex.Transaction, id: number): Promise<void> {
  return repository.lockOrder(tx, id);
}

/**
 * Moves the received quantity of a line of the order (receptions and their corrections), in the
 * caller's transaction and in one conditional statement; false when the move would receive more
 * than ordered or less than nothing.
 */
export function moveReceived(tx: Knex.Transaction, orderId: number, itemId: number, delta: number): Promise<boolean> {
  return repository.moveReceived(tx, orderId, itemId, delta);
}

/** Sets the order's status from its lines and records `purchase_order.updated`. */
export async function refreshAfterReceipt(tx: Knex.Transaction, scope: CompanyScope, orderId: number): Promise<void> {
  const order = (await repository.findOrder(tx, scope, orderId))!;
  const status = deriveStatus(order.items.map((i) => ({ quantity: i.quantity, received: i.received_quantity })), order.status);
  await repository.updateOrder(tx, orderId, { status });
  const updated = repository.toPurchaseOrder((await repository.findOrder(tx, scope, orderId))!);
  await recordEvent(tx, { companyId: updated.client_3pl_id, type: 'purchase_order.updated', data: updated });
}
