/**
 * Returns: goods a client partner sends back into a warehouse. A return raises stock per line
 * (STOC_OK unless the line says otherwise, so damaged goods go to STOC_DEFECT) in one transaction
 * with its movements and events. Against a delivered sales order, each article may come back at
 * most as much as the order delivered less what earlier returns took back.
 */
import { toQuantity } from '../../kernel/quantity.js';
import { isUniqueViolation } from '../../platform/db/driver-errors.js';
import { InputError, NotFoundError, type FieldErrors } from '../../platform/errors.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { recordEvent } from '../../platform/outbox.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import { resolveLines } from '../articles/document-lines.js';
import { getPartner, getWarehouse } from '../reference/reference.service.js';
import { companyScope, lockDeliveredOrder, userOf } from '../sales-orders/sales-orders.service.js';
import { applyStockChange, inLockOrder } from '../stock/stock.service.js';
import * as repository from './returns.repository.js';
import type { ReturnResource } from './returns.repository.js';
import { inTransaction } from '../../platform/db/transaction.js';

/** GET /api/returns answers the newest this many. */
export const RETURNS_LISTED = 100;

const messages = {
  notFound: (id: number) => `Return ${id} was not found.`,
  notClientPartner: 'The partner_id must be a client partner of a client in scope.',
  warehouse: 'The warehouse_id must be a warehouse of the provider.',
  codeTaken: 'The internal_code has already been taken for this client.',
  notDelivered: (articleId: number, orderId: number) => `Article ${articleId} was not delivered by sales order ${orderId}.`,
  tooMuch: (left: number, delivered: number) => `At most ${left} of this article can still be returned (${delivered} delivered).`,
};

export function listReturns(ctx: TenantContext): Promise<ReturnResource[]> {
  return repository.newestReturns(ctx.db, ctx.scope, RETURNS_LISTED);
}

export function returnsAfter(ctx: TenantContext, options: { after?: number; limit: number }): Promise<ReturnResource[]> {
  return repository.returnsAfter(ctx.db, ctx.scope, options.after, options.limit);
}

export async function getReturn(ctx: TenantContext, id: number): Promise<ReturnResource> {
  const found = await repository.findReturn(ctx.db, ctx.scope, id);
  if (!found) throw new NotFoundError(messages.notFound(id));
  return found;
}

function as422<T>(field: string, message: string): (error: unknown) => T {
  return (error) => {
    if (error instanceof NotFoundError) throw InputError.field(field, message);
    throw error;
  };
}

export async function createReturn(ctx: TenantContext, body: Schema<'ReturnCreate'>): Promise<ReturnResource> {
  const scope = companyScope(ctx);
  const partner = await getPartner(ctx, body.partner_id).catch(as422<Schema<'Partner'>>('partner_id', messages.notClientPartner));
  if (partner.type !== 'client') throw InputError.field('partner_id', messages.notClientPartner);
  await getWarehouse(ctx, body.warehouse_id).catch(as422<Schema<'Warehouse'>>('warehouse_id', messages.warehouse));
  const clientId = partner.client_3pl_id;
  const resolved = await resolveLines(ctx.db, { clientId, providerId: scope.providerId }, body.items);
  const lines = resolved.map((line, i) => ({ ...line, stockType: body.items[i]!.stock_type ?? 'STOC_OK' }));
  try {
    return await inTransaction(ctx.db, async (tx) => {
      if (body.sales_order_id !== undefined && body.sales_order_id !== null) {
        const orderId = body.sales_order_id;
        const delivered = await lockDeliveredOrder(tx, ctx.scope, orderId, clientId);
        const returned = await repository.returnedByArticle(tx, orderId);
        const errors: FieldErrors = {};
        lines.forEach((line, i) => {
          const got = delivered.get(line.articleId);
          if (got === undefined) return void (errors[`items.${i}.article_id`] = [messages.notDelivered(line.articleId, orderId)]);
          const before = returned.get(line.articleId) ?? 0;
          returned.set(line.articleId, before + line.quantity);
          if (before + line.quantity > got) errors[`items.${i}.quantity_um3pl`] = [messages.tooMuch(toQuantity(Math.max(got - before, 0)), toQuantity(got))];
        });
        if (Object.keys(errors).length > 0) throw new InputError(errors);
      }
      if (body.internal_code && (await repository.codeTaken(tx, clientId, body.internal_code))) throw InputError.field('internal_code', messages.codeTaken);
      const id = await repository.insertReturn(
        tx,
        {
          company_id: clientId,
          partner_id: partner.id,
          warehouse_id: body.warehouse_id,
          sales_order_id: body.sales_order_id ?? null,
          internal_code: body.internal_code ?? null,
          reason: body.reason ?? null,
        },
        lines,
      );
      for (const { line, index: i } of inLockOrder(lines, (l) => ({ articleId: l.articleId, stockType: l.stockType }))) {
        await applyStockChange(tx, {
          clientId,
          warehouseId: body.warehouse_id,
          articleId: line.articleId,
          stockType: line.stockType,
          delta: line.quantity,
          cause: 'return',
          document: { kind: 'return', id },
          userId: userOf(ctx),
          articleCode: line.articleCode,
          field: `items.${i}.quantity_um3pl`,
        });
      }
      const created = (await repository.findReturn(tx, ctx.scope, id))!;
      await recordEvent(tx, { companyId: clientId, type: 'return.created', data: created });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw InputError.field('internal_code', messages.codeTaken);
    throw error;
  }
}
