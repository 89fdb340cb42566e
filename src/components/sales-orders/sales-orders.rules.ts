/** The status graph of sales orders, pure: one table, unit-tested exhaustively. */
import type { Schema } from '../../platform/openapi/schemas.js';

export type SalesOrderStatus = Schema<'SalesOrderStatus'>;

/** new -> picking -> picked -> delivered; cancelled from any status before delivered. */
export const TRANSITIONS: Readonly<Record<SalesOrderStatus, readonly SalesOrderStatus[]>> = {
  new: ['picking', 'cancelled'],
  picking: ['picked', 'cancelled'],
  picked: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

/** Orders in these statuses reserve their quantities. */
export const OPEN_STATUSES: readonly SalesOrderStatus[] = ['new', 'picking', 'picked'];

export function canMove(from: SalesOrderStatus, to: SalesOrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isOpen(status: SalesOrderStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

/** Why a move is refused, listing the moves that are allowed. */
export function forbiddenMoveMessage(from: SalesOrderStatus, to: SalesOrderStatus): string {
  const allowed = TRANSITIONS[from];
  return allowed.length === 0
    ? `The order is ${from}; it cannot move to ${to} or to any other status.`
    : `The order cannot move from ${from} to ${to}; allowed: ${allowed.join(', ')}.`;
}
