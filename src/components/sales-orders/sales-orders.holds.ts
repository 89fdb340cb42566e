/**
 * Holds: an open order held with a reason neither ships nor moves (except to `cancelled`) until it
 * is released. Both are retry-safe: holding an order held for the same reason, or releasing one
 * that is not held, answers the order as it is and records nothing; a change records
 * `sales_order.updated`. The order is locked first, so a hold and a shipment of one order queue up:
 * a shipment that got the order first ships, one that comes after the hold is refused.
 */
import { InputError } from '../../platform/errors.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrderResource } from './sales-orders.repository.js';
import { notHoldableMessage } from './sales-orders.rules.js';
import { lockedOrder, writeOrder } from './sales-orders.service.js';

export async function holdSalesOrder(ctx: TenantContext, id: number, reasonSent: string): Promise<SalesOrderResource> {
  const reason = reasonSent.trim();
  if (reason === '') throw InputError.field('reason', 'The reason must say why the order is held; it must not be blank.');
  return writeOrder(ctx, 'sales_order.updated', async (tx) => {
    const order = await lockedOrder(tx, ctx.scope, id);
    const refusal = notHoldableMessage(order.status);
    if (refusal) throw InputError.field('status', refusal);
    if (order.on_hold && order.hold_reason === reason) return { id, changed: false };
    await repository.setHold(tx, id, reason);
    return id;
  });
}

export function releaseSalesOrder(ctx: TenantContext, id: number): Promise<SalesOrderResource> {
  return writeOrder(ctx, 'sales_order.updated', async (tx) => {
    const order = await lockedOrder(tx, ctx.scope, id);
    if (!order.on_hold) return { id, changed: false };
    await repository.setHold(tx, id, null);
    return id;
  });
}
