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

/** The status follows from the receptions: none received, some, all; or the order was cancelled. */
export function deriveStatus(items: readonly ItemProgress[], cancelled: boolean): PurchaseOrderStatus {
  if (cancelled) return 'cancelled';
  if (items.length > 0 && items.every((i) => i.received >= i.quantity)) return 'received';
  return items.some((i) => i.received > 0) ? 'partially_received' : 'open';
}

export function anythingReceived(items: readonly ItemProgress[]): boolean {
  return items.some((i) => i.received > 0);
}
