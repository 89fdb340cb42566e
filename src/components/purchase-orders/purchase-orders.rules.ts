/** Rules of purchase orders, pure. */
import type { Schema } from '../../platform/openapi/schemas.js';

export type PurchaseOrderStatus = Schema<'PurchaseOrderStatus'>;

export interface ItemProgress {
  /** Ordered, in thousandths. */
  quantity: number;
  /** Received so far, in thousandths. */
  received: number;
}

/** Orders in these statuses still expect goods: their lines are open. */
export const OPEN_STATUSES: readonly PurchaseOrderStatus[] = ['open', 'partially_received'];

/**
 * The status follows from the receptions: none received, some, all; an order cancelled or
 * short-closed by an update stays so (a correction of a closed order's reception keeps it closed).
 */
export function deriveStatus(items: readonly ItemProgress[], current: PurchaseOrderStatus): PurchaseOrderStatus {
  if (current === 'cancelled' || current === 'closed') return current;
  if (items.length > 0 && items.every((i) => i.received >= i.quantity)) return 'received';
  return items.some((i) => i.received > 0) ? 'partially_received' : 'open';
}

/**
 * Why an update may not set `to` (`cancelled` or `closed`) on an order in `from` with this progress,
 * or undefined when it may (or the order already is so: nothing changes). Cancelling is for an
 * order of which nothing is received; closing (a short-close) for a partially received one.
 */
export function statusChangeRefusal(from: PurchaseOrderStatus, to: 'cancelled' | 'closed', items: readonly ItemProgress[]): string | undefined {
  if (from === to) return undefined;
  if (to === 'cancelled') return anythingReceived(items) ? `The order can be cancelled only while nothing is received; it is ${from}.` : undefined;
  switch (from) {
    case 'partially_received':
      return undefined;
    case 'open':
      return 'Nothing of the order is received yet, so there is nothing to short-close: cancel it instead (status cancelled).';
    case 'received':
      return 'The order is received in full; there is nothing left to close.';
    default:
      return `The order is ${from}; it cannot be closed.`;
  }
}

export function anythingReceived(items: readonly ItemProgress[]): boolean {
  return items.some((i) => i.received > 0);
}
