/**
 * POST /api/sales-orders/{id}/status: moves an order along its status graph. The move is one
 * conditional statement (of two requests racing on one order, one wins). Delivering takes every
 * line off the stock of the order's warehouse and stock type, all lines or none, in the same
 * transaction; cancelling releases the reservation. Each move records `sales_order.status_changed`.
 * A move to the status the order has is answered with the order as it is and changes nothing (a
 * retry of a move that happened); a move that loses a race is decided again on the status the
 * winner left.
 */
import { InputError, type FieldErrors } from '../../platform/errors.js';
import { type TenantContext, userOf } from '../../platform/tenant-context.js';
import { deliverStock, inLockOrder } from '../stock/stock.service.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrderResource } from './sales-orders.repository.js';
import { canMove, forbiddenMoveMessage, type SalesOrderStatus } from './sales-orders.rules.js';
import { requireOrder, reserveLines, writeOrder } from './sales-orders.service.js';

/** A move is decided again at most this often (each time another request moved the order first). */
const DECISIONS = 3;

export async function changeSalesOrderStatus(ctx: TenantContext, id: number, to: SalesOrderStatus): Promise<SalesOrderResource> {
  const before = await requireOrder(ctx.db, ctx.scope, id);
  if (before.status === to) return repository.toSalesOrder(before);
  if (!canMove(before.status, to)) throw InputError.field('status', forbiddenMoveMessage(before.status, to));
  return writeOrder(ctx, 'sales_order.status_changed', async (tx) => {
    let from = before.status;
    for (let decision = 1; !(await repository.moveStatus(tx, id, from, to)); decision++) {
      // Another request moved the order first; its row is now locked by this transaction's attempt.
      const now = await repository.currentStatus(tx, id);
      if (now === to) return { id, changed: false };
      if (!canMove(now, to) || decision >= DECISIONS) throw InputError.field('status', forbiddenMoveMessage(now, to));
      from = now;
    }
    const order = (await repository.findOrder(tx, ctx.scope, id))!;
    if (to === 'delivered') {
      const short: Array<{ index: number; field: string; message: string }> = [];
      for (const { line: item, index } of inLockOrder(order.items, (i) => ({ articleId: i.article_id }))) {
        const field = `items.${index}.quantity_um3pl`;
        const delivered = await deliverStock(tx, {
          clientId: order.company_id,
          warehouseId: order.source_warehouse_id,
          articleId: item.article_id,
          stockType: order.stock_type,
          delta: -item.quantity,
          cause: 'delivery',
          document: { kind: 'sales_order', id },
          userId: userOf(ctx),
          articleCode: item.article_code,
          field,
        });
        if (!delivered.ok) short.push({ index, field, message: delivered.message });
      }
      if (short.length > 0) {
        const errors: FieldErrors = Object.fromEntries(short.sort((a, b) => a.index - b.index).map((s) => [s.field, [s.message]]));
        throw new InputError(errors, 'Not enough stock to deliver the order; nothing was delivered.');
      }
    }
    if (to === 'cancelled') await reserveLines(tx, order, order.items, -1);
    await repository.addHistory(tx, id, to, userOf(ctx));
    return id;
  });
}
