/** The status graph of sales orders, what ships and what may be held: pure, unit-tested exhaustively. */
import type { Schema } from '../../platform/openapi/schemas.js';

export type SalesOrderStatus = Schema<'SalesOrderStatus'>;

/**
 * The moves `POST .../status` makes: new -> picking -> picked -> delivered; cancelled while nothing
 * has shipped (new, picking, picked); a partially delivered order is delivered (the rest ships) or
 * closed (the rest is given up). `partially_delivered` is reached only by a shipment.
 */
export const TRANSITIONS: Readonly<Record<SalesOrderStatus, readonly SalesOrderStatus[]>> = {
  new: ['picking', 'cancelled'],
  picking: ['picked', 'cancelled'],
  picked: ['delivered', 'cancelled'],
  partially_delivered: ['delivered', 'closed'],
  delivered: [],
  closed: [],
  cancelled: [],
};

/** Orders in these statuses reserve what their lines have left to ship (and may be held). */
export const OPEN_STATUSES: readonly SalesOrderStatus[] = ['new', 'picking', 'picked', 'partially_delivered'];

/** Orders in these statuses take shipments. */
export const SHIPPABLE_STATUSES: readonly SalesOrderStatus[] = ['picking', 'picked', 'partially_delivered'];

/** Orders in these statuses shipped something: returns are taken against them. */
export const SHIPPED_STATUSES: readonly SalesOrderStatus[] = ['partially_delivered', 'delivered', 'closed'];

export function canMove(from: SalesOrderStatus, to: SalesOrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isOpen(status: SalesOrderStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

/** Why a move is refused, listing the moves that are allowed. */
export function forbiddenMoveMessage(from: SalesOrderStatus, to: SalesOrderStatus): string {
  const allowed = TRANSITIONS[from];
  if (allowed.length === 0) return `The order is ${from}; it cannot move to ${to} or to any other status.`;
  const hint =
    to === 'partially_delivered'
      ? ' An order becomes partially_delivered by a shipment (POST /api/sales-orders/{id}/shipments).'
      : to === 'cancelled' && from === 'partially_delivered'
        ? ' Part of it has shipped: close it to give up the rest.'
        : '';
  return `The order cannot move from ${from} to ${to}; allowed: ${allowed.join(', ')}.${hint}`;
}

/** The order as the rules of holding and shipping read it. */
export interface HoldState {
  id: number;
  status: SalesOrderStatus;
  on_hold: boolean;
  hold_reason: string | null;
}

/** The 422 of a shipment or move of a held order: it names the hold and how to lift it. */
export function heldMessage(order: Pick<HoldState, 'id' | 'hold_reason'>): string {
  return `The order is on hold (${order.hold_reason ?? 'no reason given'}); release it first with POST /api/sales-orders/${order.id}/release.`;
}

/** Why an order cannot ship now, keyed by the order's field that forbids it (`status`, `on_hold`), or undefined when it can. */
export function shippingRefusal(order: HoldState): { field: 'status' | 'on_hold'; message: string } | undefined {
  if (!SHIPPABLE_STATUSES.includes(order.status)) {
    const hint = order.status === 'new' ? ' (move it to picking first)' : '';
    return { field: 'status', message: `The order is ${order.status}; only a picking, picked or partially_delivered order ships${hint}.` };
  }
  if (order.on_hold) return { field: 'on_hold', message: heldMessage(order) };
  return undefined;
}

/** Why a status move is refused by a hold (every move but `cancelled`), or undefined. */
export function heldMoveRefusal(order: HoldState, to: SalesOrderStatus): string | undefined {
  return order.on_hold && to !== 'cancelled' ? heldMessage(order) : undefined;
}

/** Why an order cannot be held, or undefined when it can (an open order). */
export function notHoldableMessage(status: SalesOrderStatus): string | undefined {
  return isOpen(status) ? undefined : `The order is ${status}; only an open order (new, picking, picked or partially_delivered) can be held.`;
}

/** What a line has left to ship, in thousandths. */
export function leftToShip(line: { quantity: number; delivered_quantity: number }): number {
  return line.quantity - line.delivered_quantity;
}

/** The status an order takes after a shipment: delivered once every line is complete. */
export function statusAfterShipment(lines: ReadonlyArray<{ quantity: number; delivered_quantity: number }>): 'delivered' | 'partially_delivered' {
  return lines.every((l) => leftToShip(l) <= 0) ? 'delivered' : 'partially_delivered';
}
