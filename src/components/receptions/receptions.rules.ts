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

/**
 * The corrections with raises before lowerings: two lines of one balance (one article and lot)
 * moved in opposite directions take the stock they give back, and a lowering is refused only when
 * the balance cannot cover the result. (inLockOrder keeps this order within a balance.)
 */
export function raisesFirst<T extends Correction>(corrections: readonly T[]): T[] {
  return [...corrections].sort((a, b) => Number(b.to > b.from) - Number(a.to > a.from));
}
