/**
 * Shipping lines of a sales order, in the caller's transaction with the order locked: the shipment
 * and its lines are stored, each line's delivered quantity rises by one conditional statement
 * (never beyond the line's quantity), stock on hand and the order's reservation fall by one
 * conditional statement per line (never below zero), all lines or none, and the order moves to
 * `partially_delivered` or `delivered`. Both `POST .../shipments` and the move to `delivered` ship
 * through here.
 */
import type { Knex } from 'knex';
import { toQuantity } from '../../kernel/quantity.js';
import { nowDb } from '../../kernel/time.js';
import { InputError, type FieldErrors } from '../../platform/errors.js';
import { recordEvent } from '../../platform/outbox.js';
import { type TenantContext, userOf } from '../../platform/tenant-context.js';
import { deliverStock, inLockOrder } from '../stock/stock.service.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrder, SalesOrderItemRow } from './sales-orders.repository.js';
import { leftToShip, statusAfterShipment } from './sales-orders.rules.js';
import * as shipments from './shipments.repository.js';
import type { NewShipment } from './shipments.repository.js';

/** A line to ship: the order's line, how much (thousandths), and the field its problems are reported on. */
export interface LineToShip {
  item: SalesOrderItemRow;
  quantity: number;
  /** `items.0.quantity_um3pl`: the body's line, or the order's line when the shipment takes everything left. */
  field: string;
  /** The position its problems sort by. */
  index: number;
}

/** Everything the order has left to ship, each line reported on as the order lists it. */
export function everythingLeft(order: SalesOrder): LineToShip[] {
  return order.items
    .map((item, index) => ({ item, quantity: leftToShip(item), field: `items.${index}.quantity_um3pl`, index }))
    .filter((line) => line.quantity > 0);
}

export interface ShipOptions {
  /** The ledger's cause: `shipment`, or `delivery` for a move to `delivered` (document the sales order, as before shipments). */
  cause: 'shipment' | 'delivery';
  /** The message of the 422 when stock is short. */
  shortMessage: string;
}

/**
 * Ships `lines` of `order` (locked by the caller, read after the lock) and records
 * `shipment.created`; answers the shipment's id and whether the order's status moved (its history
 * then has the new entry). Throws a 422 naming every short line, and the caller's transaction
 * rolls back whole.
 */
export async function shipLines(
  tx: Knex.Transaction,
  ctx: TenantContext,
  order: SalesOrder,
  lines: readonly LineToShip[],
  fields: Omit<NewShipment, 'company_id' | 'sales_order_id'>,
  options: ShipOptions,
): Promise<{ shipmentId: number; moved: boolean }> {
  const id = await shipments.insertShipment(tx, { ...fields, company_id: order.company_id, sales_order_id: order.id }, lines.map((l) => ({ itemId: l.item.id, quantity: l.quantity })));
  const document = options.cause === 'shipment' ? { kind: 'shipment', id } : { kind: 'sales_order', id: order.id };
  const short: Array<{ index: number; field: string; message: string }> = [];
  let lineIds: Map<number, number> | undefined;
  for (const { line } of inLockOrder(lines, (l) => ({ articleId: l.item.article_id }))) {
    // What is left was checked under the order's lock; the conditional statement still has the last word.
    if (!(await repository.addDelivered(tx, line.item.id, line.quantity))) {
      throw InputError.field(line.field, `Shipping ${toQuantity(line.quantity)} would exceed what is left to ship on this line.`);
    }
    const delivered = await deliverStock(tx, {
      clientId: order.company_id,
      warehouseId: order.source_warehouse_id,
      articleId: line.item.article_id,
      stockType: order.stock_type,
      lot: line.item.lot ?? '',
      tracked: line.item.tracked,
      delta: -line.quantity,
      cause: options.cause,
      document,
      userId: userOf(ctx),
      articleCode: line.item.article_code,
      field: line.field,
    });
    if (!delivered.ok) short.push({ index: line.index, field: line.field, message: delivered.message });
    else if (delivered.lots.length > 0) {
      lineIds ??= await shipments.lineIdsOf(tx, id);
      await shipments.insertLineLots(tx, lineIds.get(line.item.id)!, delivered.lots);
    }
  }
  if (short.length > 0) {
    const errors: FieldErrors = Object.fromEntries(short.sort((a, b) => a.index - b.index).map((s) => [s.field, [s.message]]));
    throw new InputError(errors, options.shortMessage);
  }
  const shipped = new Map(lines.map((l) => [l.item.id, l.quantity]));
  const status = statusAfterShipment(order.items.map((i) => ({ quantity: i.quantity, delivered_quantity: i.delivered_quantity + (shipped.get(i.id) ?? 0) })));
  const moved = status !== order.status;
  if (moved) {
    const at = nowDb();
    if (!(await repository.moveStatus(tx, order.id, order.status, status, at))) throw new Error(`Sales order ${order.id} changed under its lock`);
    await repository.addHistory(tx, order.id, status, userOf(ctx), at);
  } else {
    await repository.updateOrder(tx, order.id, {});
  }
  await recordEvent(tx, { companyId: order.company_id, type: 'shipment.created', data: (await shipments.findShipment(tx, ctx.scope, id))! });
  return { shipmentId: id, moved };
}
