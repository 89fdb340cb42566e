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
import { InputError, type FieldErrors } from '../../platform/errors.js';
import { recordEvent } from '../../platform/outbox.js';
import { type TenantContext, userOf } from '../../platform/tenant-context.js';
import { deliverStock, inLockOrder, type SharedNeed } from '../stock/stock.service.js';
import * as repository from './sales-orders.repository.js';
import type { SalesOrder, SalesOrderItemRow } from './sales-orders.repository.js';
import { leftToShip, statusAfterShipment } from './sales-orders.rules.js';
import * as shipments from './shipments.repository.js';
import type { NewShipment } from './shipments.repository.js';

/** A line to ship: the order's line, how much (thousandths), and the field its problems are reported on. */
export interface LineToShip {
  item: SalesOrderItemRow;
  quantity: number;
  /**
   * What the client sent that asked for it: `items.0.quantity_um3pl`, the body's line; for
   * everything left, the field of the request (`items` of a shipment without them, `status`).
   */
  field: string;
  /** The position its problems sort by. */
  index: number;
}

/**
 * Everything the order has left to ship, its problems reported on `field`: the request sent no
 * line, so they go on what it did send (a shipment's absent `items`, a move's `status`).
 */
export function everythingLeft(order: SalesOrder, field: 'items' | 'status'): LineToShip[] {
  return order.items.map((item, index) => ({ item, quantity: leftToShip(item), field, index })).filter((line) => line.quantity > 0);
}

export interface ShipOptions {
  /** The ledger's cause: `shipment`, or `delivery` for a move to `delivered` (document the sales order, as before shipments). */
  cause: 'shipment' | 'delivery';
  /** The message of the 422 when stock is short. */
  shortMessage: string;
  /** How a shortfall names lines of one balance together: "the order's lines", "the shipment's lines". */
  linesName: string;
}

/** The balance (and lot pin) a line takes from: lines of one order share its warehouse and stock type. */
const balanceOf = (line: LineToShip): string => `${line.item.article_id}|${line.item.lot ?? ''}`;

/** What the lines of each balance need together, and how many lines they are. */
function needsOf(lines: readonly LineToShip[]): Map<string, { needed: number; lines: number }> {
  const needs = new Map<string, { needed: number; lines: number }>();
  for (const line of lines) {
    const need = needs.get(balanceOf(line)) ?? { needed: 0, lines: 0 };
    needs.set(balanceOf(line), { needed: need.needed + line.quantity, lines: need.lines + 1 });
  }
  return needs;
}

/** The other lines of a line's balance, for its shortfall message; none when it is the balance's only line. */
function shared(need: { needed: number; lines: number }, taken: number, by: string): SharedNeed | undefined {
  return need.lines > 1 ? { taken, needed: need.needed, by } : undefined;
}

/**
 * Ships `lines` of `order` (locked by the caller, read after the lock) and records
 * `shipment.created`; answers the shipment's id and whether the order's status moved (its history
 * then has the new entry). Throws a 422 naming every balance short of stock, once, on the field of
 * its first short line: what the balance had against what all the lines on it need (not what the
 * lines before left). The caller's transaction rolls back whole.
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
  // A balance's shortfall is told once, for all its lines: what it had against what they need.
  const needs = needsOf(lines);
  const taken = new Map<string, number>();
  const shortOf = new Set<string>();
  let lineIds: Map<number, number> | undefined;
  for (const { line } of inLockOrder(lines, (l) => ({ articleId: l.item.article_id }))) {
    const balance = balanceOf(line);
    if (shortOf.has(balance)) continue;
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
    }, shared(needs.get(balance)!, taken.get(balance) ?? 0, options.linesName));
    if (!delivered.ok) {
      short.push({ index: line.index, field: line.field, message: delivered.message });
      shortOf.add(balance);
      continue;
    }
    taken.set(balance, (taken.get(balance) ?? 0) + line.quantity);
    if (delivered.lots.length > 0) {
      lineIds ??= await shipments.lineIdsOf(tx, id);
      await shipments.insertLineLots(tx, lineIds.get(line.item.id)!, delivered.lots);
    }
  }
  if (short.length > 0) {
    const errors: FieldErrors = {};
    for (const s of short.sort((a, b) => a.index - b.index)) (errors[s.field] ??= []).push(s.message);
    throw new InputError(errors, options.shortMessage);
  }
  const shipped = new Map(lines.map((l) => [l.item.id, l.quantity]));
  const status = statusAfterShipment(order.items.map((i) => ({ quantity: i.quantity, delivered_quantity: i.delivered_quantity + (shipped.get(i.id) ?? 0) })));
  const moved = status !== order.status;
  if (moved) {
    if (!(await repository.moveStatus(tx, order.id, order.status, status))) throw new Error(`Sales order ${order.id} changed under its lock`);
    await repository.addHistory(tx, order.id, status, userOf(ctx));
  } else {
    await repository.updateOrder(tx, order.id, {});
  }
  await recordEvent(tx, { companyId: order.company_id, type: 'shipment.created', data: (await shipments.findShipment(tx, ctx.scope, id))! });
  return { shipmentId: id, moved };
}
