/**
 * How the corrections of one PUT /api/receptions/{id} are applied: on the reception as the request
 * leaves it, never line by line in the order the lines were sent. Lot A 0.4 -> 0.2 and lot B
 * 0.6 -> 0.8 of one order line of 1 receive 1 either way; raising B first would have read 1.2.
 */

/** A correction of one reception line: its index in the request, and its quantity before and after (thousandths). */
export interface Correction {
  index: number;
  poItemId: number;
  from: number;
  to: number;
}

export interface ReceivedChange {
  poItemId: number;
  /** The change of the order line's received quantity, every correction of the request together. */
  delta: number;
  /** The corrections that raise a line of it: the ones a refusal names. */
  raised: Correction[];
}

/** Each purchase-order line the corrections change, with its one change, by line id. */
export function receivedChanges(corrections: readonly Correction[]): ReceivedChange[] {
  const byLine = new Map<number, ReceivedChange>();
  for (const c of corrections) {
    if (c.to === c.from) continue;
    const change = byLine.get(c.poItemId) ?? { poItemId: c.poItemId, delta: 0, raised: [] };
    byLine.set(c.poItemId, change);
    change.delta += c.to - c.from;
    if (c.to > c.from) change.raised.push(c);
  }
  return [...byLine.values()].filter((change) => change.delta !== 0).sort((a, b) => a.poItemId - b.poItemId);
}

/** Why a raise of an order line was refused, in thousandths: what its message names. */
export interface OverOrder {
  correction: Correction;
  /** What the order line would have received with every correction of the request. */
  wouldReceive: number;
  ordered: number;
  /** What other receptions received of the order line. */
  byOtherReceptions: number;
  /** What this reception's other lines of the order line hold after the request. */
  byOtherLines: number;
  /** The most this line may be corrected to, the other lines as the request leaves them. */
  atMost: number;
}

/**
 * The refused raises of an order line whose received quantity could not move by `change.delta`,
 * from the order line (its ordered and received quantities) and what this reception's lines of
 * it held before the request (`held`), both as read under the order's lock.
 */
export function overOrders(change: ReceivedChange, orderLine: { quantity: number; received_quantity: number }, held: number): OverOrder[] {
  const wouldReceive = orderLine.received_quantity + change.delta;
  const byOtherReceptions = orderLine.received_quantity - held;
  return change.raised.map((correction) => {
    const byOtherLines = held + change.delta - correction.to;
    const atMost = Math.max(0, orderLine.quantity - byOtherReceptions - byOtherLines);
    return { correction, wouldReceive, ordered: orderLine.quantity, byOtherReceptions, byOtherLines, atMost };
  });
}

/**
 * The corrections with raises before lowerings: two lines of one balance (one article and lot)
 * moved in opposite directions take the stock they give back, and a lowering is refused only when
 * the balance cannot cover the result. (inLockOrder keeps this order within a balance.)
 */
export function raisesFirst<T extends Correction>(corrections: readonly T[]): T[] {
  return [...corrections].sort((a, b) => Number(b.to > b.from) - Number(a.to > a.from));
}
