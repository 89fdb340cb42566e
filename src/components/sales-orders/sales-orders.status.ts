/**
 * POST /api/sales-orders/{id}/status: moves an order along its status graph. The order is locked
 * first, so moves (and shipments) of one order queue up and each is decided on the status the one
 * before it left: of a delivery and a cancellation racing, one wins and the other is refused by the
 * graph. Delivering ships everything the order has left as one shipment without tracking
 * (shipments.ship.ts: all lines or none, in the same transaction); cancelling and closing release
 * what the order still reserves. Each move records `sales_order.status_changed`. A move to the
 * status the order has is answered with the order as it is and changes nothing (a retry of a move
 * that happened); a held order moves only to `cancelled`, which lifts the hold.
 */
import { InputError } from '../../platform/errors.js';
import { type TenantContext, userOf } from '../../platform/tenant-context.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrderResource } from './sales-orders.repository.js';
import { canMove, forbiddenMoveMessage, heldMoveRefusal, type SalesOrderStatus } from './sales-orders.rules.js';
import { linesLeft, lockedOrder, reserveLines, writeOrder } from './sales-orders.service.js';
import { everythingLeft, shipLines } from './shipments.ship.js';

const SHORT = 'Not enough stock to deliver the order; nothing was delivered.';
const WITHOUT_TRACKING = { carrier: null, service: null, tracking_number: null, tracking_url: null, internal_code: null } as const;

export async function changeSalesOrderStatus(ctx: TenantContext, id: number, to: SalesOrderStatus): Promise<SalesOrderResource> {
  return writeOrder(ctx, 'sales_order.status_changed', async (tx) => {
    const order = await lockedOrder(tx, ctx.scope, id);
    if (order.status === to) return { id, changed: false };
    if (!canMove(order.status, to)) throw InputError.field('status', forbiddenMoveMessage(order.status, to));
    const held = heldMoveRefusal(order, to);
    if (held) throw InputError.field('on_hold', held);
    if (to === 'delivered') {
      // The shipment of everything left moves the order to delivered and writes its history.
      await shipLines(tx, ctx, order, everythingLeft(order, 'status'), WITHOUT_TRACKING, { cause: 'delivery', shortMessage: SHORT, linesName: "the order's lines" });
      return id;
    }
    if (!(await repository.moveStatus(tx, id, order.status, to))) throw new Error(`Sales order ${id} changed under its lock`);
    if (to === 'cancelled' || to === 'closed') await reserveLines(tx, order, linesLeft(order), -1);
    if (to === 'cancelled' && order.on_hold) await repository.setHold(tx, id, null);
    await repository.addHistory(tx, id, to, userOf(ctx));
    return id;
  });
}
