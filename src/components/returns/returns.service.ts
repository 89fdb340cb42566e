/**
 * Returns: goods a client partner sends back into a warehouse. A return raises stock per line
 * (STOC_OK unless the line says otherwise, so damaged goods go to STOC_DEFECT) in one transaction
 * with its movements and events, on the lot and expiry date the line names for an article that
 * tracks them. Against a sales order that shipped, the return comes from the partner the order went
 * to, and takes back at most what the order delivered less what earlier returns took back
 * (returns.rules.ts: per article, lot and expiry date).
 */
import type { PageRequest } from '../../kernel/paging.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { inputTime } from '../../platform/input-time.js';
import { clientInScope } from '../../kernel/company-scope.js';
import { NotFoundError } from '../../platform/errors.js';
import { Problems } from '../../platform/problems.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { resolveLines } from '../documents/document-lines.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { checkWarehouse } from '../reference/reference.service.js';
import { clientPartner, lockReturnableOrder, messages as salesOrderMessages } from '../sales-orders/sales-orders.service.js';
import { applyStockChange, inLockOrder } from '../stock/stock.service.js';
import * as repository from './returns.repository.js';
import { checkAgainstDelivery, deliveredBy, tally } from './returns.rules.js';
import type { ReturnResource } from './returns.repository.js';

const messages = {
  notFound: (id: number) => `Return ${id} was not found.`,
  codeTaken: codeTakenMessage('internal_code'),
  otherPartner: (orderId: number, partnerId: number) =>
    `Sales order ${orderId} went to partner ${partnerId}: a return against it comes from that partner (leave sales_order_id out for goods not tied to an order).`,
};

/** The filters of GET /api/returns, as its query names them (GraphQL's `returns` takes the same). */
export interface ReturnListFilters {
  sales_order_id?: number;
  updated_since?: string;
}

const repositoryFilters = (filters: ReturnListFilters): repository.ReturnFilters => ({ salesOrderId: filters.sales_order_id, updatedSince: inputTime(filters.updated_since) });

export function listReturns(ctx: TenantContext, filters: ReturnListFilters, page: PageRequest): Promise<Paged<ReturnResource>> {
  return repository.listReturns(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function returnsAfter(ctx: TenantContext, filters: ReturnListFilters, options: { after?: number; limit: number }): Promise<ReturnResource[]> {
  return repository.returnsAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

/** One return in scope, or undefined (GraphQL's `return`). */
export function findReturn(ctx: TenantContext, id: number): Promise<ReturnResource | undefined> {
  return repository.findReturn(ctx.db, ctx.scope, id);
}

export async function getReturn(ctx: TenantContext, id: number): Promise<ReturnResource> {
  const found = await findReturn(ctx, id);
  if (!found) throw new NotFoundError(messages.notFound(id));
  return found;
}

/**
 * Registers a return. Against a sales order, the order is locked first (returns against it queue
 * up; on MySQL/MariaDB a plain read before the lock would fix an older snapshot); then the partner,
 * warehouse, lines, what the order delivered and the code are checked, every problem at once.
 */
export async function createReturn(ctx: TenantContext, body: Schema<'ReturnCreate'>): Promise<ReturnResource> {
  const scope = companyScope(ctx);
  return writeDocument(ctx.db, {
    type: 'return.created',
    codeField: 'internal_code',
    reread: async (tx, id) => (await repository.findReturn(tx, ctx.scope, id))!,
    companyOf: (created) => created.client_3pl_id,
    work: async (tx) => {
      const problems = new Problems();
      const using = { ...ctx, db: tx };
      const orderId = body.sales_order_id ?? undefined;
      const order = orderId === undefined ? undefined : await problems.collect(lockReturnableOrder(tx, ctx.scope, orderId));
      const partner = await problems.collect(clientPartner(using, body.partner_id));
      if (order && partner && order.clientId !== partner.client_3pl_id) problems.add('sales_order_id', salesOrderMessages.notReturnable);
      else if (order && partner && order.partnerId !== partner.id) problems.add('partner_id', messages.otherPartner(orderId!, order.partnerId));
      await checkWarehouse(using, body.warehouse_id, 'warehouse_id', problems);
      const clientId = partner?.client_3pl_id ?? clientInScope(scope);
      const lines = await resolveLines(tx, { clientId, clientIds: scope.clientIds, providerId: scope.providerId }, body.items, { problems, lots: 'inbound' });
      if (order && orderId !== undefined && !problems.has('sales_order_id')) {
        const returned = tally(await repository.returnedByArticle(tx, orderId), await repository.returnedByLot(tx, orderId));
        checkAgainstDelivery(lines, deliveredBy(order.delivered, order.deliveredLots), returned, orderId, problems);
      }
      if (body.internal_code && clientId !== undefined && (await codeTaken(tx, 'returns', 'internal_code', clientId, body.internal_code))) problems.add('internal_code', messages.codeTaken);
      problems.throwIfAny();
      const client = partner!.client_3pl_id;
      const stocked = lines.map((line) => ({ ...line, stockType: body.items[line.index]!.stock_type ?? 'STOC_OK' }));
      const id = await repository.insertReturn(
        tx,
        {
          company_id: client,
          partner_id: partner!.id,
          warehouse_id: body.warehouse_id,
          sales_order_id: orderId ?? null,
          internal_code: body.internal_code ?? null,
          reason: body.reason ?? null,
        },
        stocked,
      );
      for (const { line } of inLockOrder(stocked, (l) => ({ articleId: l.articleId, stockType: l.stockType }))) {
        await applyStockChange(tx, {
          clientId: client,
          warehouseId: body.warehouse_id,
          articleId: line.articleId,
          stockType: line.stockType,
          lot: line.lot,
          expiryDate: line.expiryDate,
          tracked: line.tracked,
          delta: line.quantity,
          cause: 'return',
          document: { kind: 'return', id },
          userId: userOf(ctx),
          articleCode: line.articleCode,
          field: `items.${line.index}.quantity_um3pl`,
        });
      }
      return id;
    },
  });
}
