/**
 * Sales orders to client partners. An open order (new, picking, picked) reserves its quantities on
 * the stock of its warehouse and stock type; it may be created beyond available stock (it then
 * shows as backordered). Lines, warehouse and stock type change only while the order is new.
 */
import type { Knex } from 'knex';
import { changedFields } from '../../kernel/changes.js';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { isUniqueViolation } from '../../platform/db/driver-errors.js';
import type { Paged } from '../../platform/db/queries.js';
import { InputError, NotFoundError } from '../../platform/errors.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { recordEvent, type EventType } from '../../platform/outbox.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import { resolveLines, type ResolvedLine } from '../articles/document-lines.js';
import { getPartner, getWarehouse } from '../reference/reference.service.js';
import { inLockOrder, reserveStock } from '../stock/stock.service.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrder, SalesOrderResource, SalesOrderRow } from './sales-orders.repository.js';
import type { SalesOrderStatus } from './sales-orders.rules.js';
import { inTransaction } from '../../platform/db/transaction.js';

export type { SalesOrder, SalesOrderResource };

export const messages = {
  notFound: (id: number) => `Sales order ${id} was not found.`,
  notClientPartner: 'The partner_id must be a client partner of a client in scope.',
  otherClient: "The partner_id must be a client partner of the order's client.",
  warehouse: 'The source_warehouse_id must be a warehouse of the provider.',
  codeTaken: 'The internal_code has already been taken for this client.',
  onlyWhileNew: (field: string, status: SalesOrderStatus) => `The ${field} can change only while the order is new; it is ${status}.`,
};

export function companyScope(ctx: TenantContext): Extract<CompanyScope, { kind: 'company' }> {
  if (ctx.scope.kind !== 'company') throw new Error('Sales-order writes need a company scope (X-Company-Id)');
  return ctx.scope;
}

export function userOf(ctx: TenantContext): number | null {
  return ctx.principal.kind === 'user' ? ctx.principal.user.id : null;
}

/** The client partner in scope, or a 422 on partner_id. */
async function clientPartner(ctx: TenantContext, partnerId: number): Promise<Schema<'Partner'>> {
  const partner = await getPartner(ctx, partnerId).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw InputError.field('partner_id', messages.notClientPartner);
    throw error;
  });
  if (partner.type !== 'client') throw InputError.field('partner_id', messages.notClientPartner);
  return partner;
}

async function requireWarehouse(ctx: TenantContext, id: number): Promise<void> {
  await getWarehouse(ctx, id).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw InputError.field('source_warehouse_id', messages.warehouse);
    throw error;
  });
}

/** Reserves (sign 1) or releases (sign -1) every line of an order on its warehouse and stock type. */
export async function reserveLines(
  tx: Knex.Transaction,
  order: Pick<SalesOrderRow, 'company_id' | 'source_warehouse_id' | 'stock_type'>,
  lines: ReadonlyArray<{ article_id: number; quantity: number }>,
  sign: 1 | -1,
): Promise<void> {
  for (const { line } of inLockOrder(lines, (l) => ({ articleId: l.article_id }))) {
    const key = { clientId: order.company_id, warehouseId: order.source_warehouse_id, articleId: line.article_id, stockType: order.stock_type };
    await reserveStock(tx, key, sign * line.quantity);
  }
}

export async function requireOrder(db: Knex, scope: CompanyScope, id: number): Promise<SalesOrder> {
  const order = await repository.findOrder(db, scope, id);
  if (!order) throw new NotFoundError(messages.notFound(id));
  return order;
}

/** Runs `work` in a transaction and records `type` with the order as it then is. */
export async function writeOrder(ctx: TenantContext, type: EventType, work: (tx: Knex.Transaction) => Promise<number>): Promise<SalesOrderResource> {
  try {
    return await inTransaction(ctx.db, async (tx) => {
      const id = await work(tx);
      const order = repository.toSalesOrder((await repository.findOrder(tx, ctx.scope, id))!);
      await recordEvent(tx, { companyId: order.client_3pl_id, type, data: order });
      return order;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw InputError.field('internal_code', messages.codeTaken);
    throw error;
  }
}

function asLines(lines: ResolvedLine[]): Array<{ article_id: number; quantity: number }> {
  return lines.map((l) => ({ article_id: l.articleId, quantity: l.quantity }));
}

export function listSalesOrders(
  ctx: TenantContext,
  filters: { status?: SalesOrderStatus; partner_id?: number; internal_code?: string; updated_since?: string },
  page: PageRequest,
): Promise<Paged<SalesOrderResource>> {
  return repository.listOrders(ctx.db, ctx.scope, { ...filters, updatedSince: inputTime(filters.updated_since) }, page);
}

export function salesOrdersAfter(ctx: TenantContext, options: { after?: number; status?: SalesOrderStatus; limit: number }): Promise<SalesOrderResource[]> {
  return repository.ordersAfter(ctx.db, ctx.scope, options);
}

export async function getSalesOrder(ctx: TenantContext, id: number): Promise<SalesOrderResource> {
  return repository.toSalesOrder(await requireOrder(ctx.db, ctx.scope, id));
}

/** The order, or undefined when it is not in scope. */
export async function findSalesOrder(ctx: TenantContext, id: number): Promise<SalesOrderResource | undefined> {
  const order = await repository.findOrder(ctx.db, ctx.scope, id);
  return order ? repository.toSalesOrder(order) : undefined;
}

export async function createSalesOrder(ctx: TenantContext, body: Schema<'SalesOrderCreate'>): Promise<SalesOrderResource> {
  const scope = companyScope(ctx);
  const partner = await clientPartner(ctx, body.partner_id);
  await requireWarehouse(ctx, body.source_warehouse_id);
  const clientId = partner.client_3pl_id;
  const lines = await resolveLines(ctx.db, { clientId, providerId: scope.providerId }, body.items);
  const fields = {
    company_id: clientId,
    partner_id: partner.id,
    source_warehouse_id: body.source_warehouse_id,
    stock_type: body.stock_type ?? 'STOC_OK',
    internal_code: body.internal_code,
    notes: body.notes ?? null,
    external_reference: body.external_reference ?? null,
  } as const;
  return writeOrder(ctx, 'sales_order.created', async (tx) => {
    if (await repository.codeTaken(tx, clientId, body.internal_code)) throw InputError.field('internal_code', messages.codeTaken);
    const id = await repository.insertOrder(tx, fields);
    await repository.insertItems(tx, id, lines);
    await repository.addHistory(tx, id, 'new', userOf(ctx));
    await reserveLines(tx, fields, asLines(lines), 1);
    return id;
  });
}

export async function updateSalesOrder(ctx: TenantContext, id: number, body: Schema<'SalesOrderUpdate'>): Promise<SalesOrderResource> {
  const scope = companyScope(ctx);
  const order = await requireOrder(ctx.db, ctx.scope, id);
  const changes: Partial<SalesOrderRow> = {};
  const onlyWhileNew = (field: string): void => {
    if (order.status !== 'new') throw InputError.field(field, messages.onlyWhileNew(field, order.status));
  };
  if (body.partner_id !== undefined && body.partner_id !== order.partner_id) {
    onlyWhileNew('partner_id');
    const partner = await clientPartner(ctx, body.partner_id);
    if (partner.client_3pl_id !== order.company_id) throw InputError.field('partner_id', messages.otherClient);
    changes.partner_id = partner.id;
  }
  if (body.source_warehouse_id !== undefined && body.source_warehouse_id !== order.source_warehouse_id) {
    onlyWhileNew('source_warehouse_id');
    await requireWarehouse(ctx, body.source_warehouse_id);
    changes.source_warehouse_id = body.source_warehouse_id;
  }
  if (body.stock_type !== undefined && body.stock_type !== order.stock_type) {
    onlyWhileNew('stock_type');
    changes.stock_type = body.stock_type;
  }
  if (body.internal_code !== undefined) changes.internal_code = body.internal_code;
  if (body.notes !== undefined) changes.notes = body.notes;
  if (body.external_reference !== undefined) changes.external_reference = body.external_reference;
  let lines: ResolvedLine[] | undefined;
  if (body.items !== undefined) {
    onlyWhileNew('items');
    lines = await resolveLines(ctx.db, { clientId: order.company_id, providerId: scope.providerId }, body.items);
  }
  if (!lines && Object.keys(changedFields(order, changes)).length === 0) return repository.toSalesOrder(order);
  const moves = lines !== undefined || changes.source_warehouse_id !== undefined || changes.stock_type !== undefined;
  return writeOrder(ctx, 'sales_order.updated', async (tx) => {
    if (moves) {
      // The order's row is locked first (a plain read before it would, on MySQL/MariaDB, fix a
      // snapshot older than a concurrent update), and it must still be new.
      if (!(await repository.moveStatus(tx, id, 'new', 'new'))) {
        const current = (await repository.findOrder(tx, ctx.scope, id))!.status;
        throw InputError.field('items', messages.onlyWhileNew('items', current));
      }
    }
    if (changes.internal_code !== undefined && (await repository.codeTaken(tx, order.company_id, changes.internal_code, id))) {
      throw InputError.field('internal_code', messages.codeTaken);
    }
    if (moves) {
      // The reservation follows the lines, warehouse and stock type: release what the order holds now, reserve the new.
      const held = (await repository.findOrder(tx, ctx.scope, id))!;
      await reserveLines(tx, held, held.items, -1);
      if (lines) {
        await repository.deleteItems(tx, id);
        await repository.insertItems(tx, id, lines);
      }
      await reserveLines(tx, { ...held, ...changes }, lines ? asLines(lines) : held.items, 1);
    }
    await repository.updateOrder(tx, id, changes);
    return id;
  });
}

/**
 * For a return against a delivered order of `clientId`, in the caller's transaction: locks the
 * order (concurrent returns against it wait their turn) and answers what it delivered per article.
 */
export async function lockDeliveredOrder(tx: Knex.Transaction, scope: CompanyScope, id: number, clientId: number): Promise<Map<number, number>> {
  if (!(await repository.lockDelivered(tx, id, clientId))) {
    const order = await repository.findOrder(tx, scope, id);
    if (!order || order.company_id !== clientId) throw InputError.field('sales_order_id', 'The sales_order_id must be a delivered sales order of the same client.');
    throw InputError.field('sales_order_id', `Sales order ${id} is ${order.status}; only a delivered order can be returned against.`);
  }
  return repository.deliveredByArticle(tx, id);
}
