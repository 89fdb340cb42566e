/**
 * How the corrections of one PUT /api/receptions/{id} are applied: on the reception as the request
 * leaves it, never line by line in the order the lines were sent. Lot A 0.4 -> 0.2 and lot B
 * 0.6 -> 0.8 of one order line of 1 receive 1 either way; raising B first would have read 1.2.
 * And which lines can no longer be corrected: those the article's unit or tracking has left behind.
 */
import { sameCode } from '../../kernel/text.js';

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

/** A reception line as it was received, and its article as it is now. */
export interface LineAndArticle {
  line: { um3pl: string; lot: string | null; expiry_date: string | null };
  article: { article_code: string; um3pl: string; lot_tracked: boolean | number; expiry_tracked: boolean | number };
}

const stale = (code: string, what: string) =>
  `Article ${code} ${what}: this line's quantity can no longer be corrected (its stock would be a balance nothing can use); change the stock with POST /api/stock/adjustments instead.`;

/**
 * Why a line can no longer be corrected, or undefined: its article changed its unit or what it
 * tracks since it was received (both are allowed once nothing is on hand or on open lines), so a
 * correction would write stock in the old unit or on a lot the article no longer has (or without
 * one it now needs).
 */
export function staleLine({ line, article }: LineAndArticle): string | undefined {
  if (!sameCode(line.um3pl, article.um3pl)) return stale(article.article_code, `is now kept in ${article.um3pl}, and this line was received in ${line.um3pl}`);
  const hasLot = (line.lot ?? '') !== '';
  if (Boolean(article.lot_tracked) !== hasLot) return stale(article.article_code, article.lot_tracked ? 'now tracks lots, and this line was received without one' : 'no longer tracks lots, and this line was received with one');
  const hasExpiry = (line.expiry_date ?? '') !== '';
  if (Boolean(article.expiry_tracked) !== hasExpiry)
    return stale(article.article_code, article.expiry_tracked ? 'now tracks expiry dates, and this line was received without one' : 'no longer tracks expiry dates, and this line was received with one');
  return undefined;
}
