/**
 * What a return against a sales order may take back: pure, unit-tested. Each article in the unit
 * the order's lines were in (an article whose unit changed since cannot come back against it), at most what
 * the order's shipments delivered of it less what earlier returns (and earlier lines) took back;
 * a line with a lot, only of a lot the shipments took and at most what they took of it; a line
 * with an expiry date, only a date the shipments took (of that lot) and at most what they took
 * with it, so that returned goods keep the shelf life they left with.
 */
import { toQuantity, type LotQuantity } from '../../kernel/quantity.js';
import { sameCode } from '../../kernel/text.js';
import type { Problems } from '../../platform/problems.js';
import type { ResolvedLine } from '../documents/document-lines.js';

export const messages = {
  notDelivered: (articleId: number, orderId: number) => `Article ${articleId} was not delivered by sales order ${orderId}.`,
  tooMuch: (left: number, delivered: number) => `At most ${left} of this article can still be returned (${delivered} delivered).`,
  lotNotShipped: (lot: string, orderId: number) => `Lot ${lot} of this article did not ship on sales order ${orderId}; name a lot its shipments took.`,
  tooMuchOfLot: (lot: string, left: number, delivered: number) => `At most ${left} of lot ${lot} can still be returned (${delivered} of it delivered).`,
  expiryNotShipped: (what: string, orderId: number, shipped: readonly string[]) =>
    `${what} shipped on sales order ${orderId} with the expiry date ${shipped.join(' or ')}; give the expiry date it left with.`,
  otherUnit: (orderId: number, code: string, shipped: readonly string[], now: string) =>
    `Sales order ${orderId} delivered article ${code} in ${shipped.join(' and ')}, and the article is now kept in ${now}: it cannot come back against that order (the quantities would mix units); leave sales_order_id out.`,
  tooMuchOfExpiry: (what: string, date: string, left: number, delivered: number) =>
    `At most ${left} of ${what} with the expiry date ${date} can still be returned (${delivered} of it delivered with that date).`,
};

/** Quantities in thousandths: per article, per lot (`<article id>|<lot>`) and per lot and expiry date (`<article id>|<lot>|<date>`, lot '' for an article that tracks only expiry). */
export interface Tally {
  byArticle: Map<number, number>;
  byLot: Map<string, number>;
  byExpiry: Map<string, number>;
}

const lotKey = (articleId: number, lot: string): string => `${articleId}|${lot}`;
const expiryKey = (articleId: number, lot: string, date: string): string => `${articleId}|${lot}|${date}`;

function add<K>(map: Map<K, number>, key: K, quantity: number): number {
  const total = (map.get(key) ?? 0) + quantity;
  map.set(key, total);
  return total;
}

/** A tally of per-article totals and of quantities by lot and expiry date. */
export function tally(byArticle: Map<number, number>, lots: readonly LotQuantity[]): Tally {
  const counted: Tally = { byArticle, byLot: new Map(), byExpiry: new Map() };
  for (const row of lots) {
    if (row.lot !== '') add(counted.byLot, lotKey(row.articleId, row.lot), row.quantity);
    if (row.expiryDate !== '') add(counted.byExpiry, expiryKey(row.articleId, row.lot, row.expiryDate), row.quantity);
  }
  return counted;
}

/** What an order's shipments delivered: a tally, and per article the units its lines were in. */
export interface Delivered extends Tally {
  units: Map<number, string[]>;
}

/** What an order's shipments delivered, from its lines (per article and unit) and its lots. */
export function deliveredBy(lines: ReadonlyArray<{ articleId: number; um3pl: string; quantity: number }>, lots: readonly LotQuantity[]): Delivered {
  const byArticle = new Map<number, number>();
  const units = new Map<number, string[]>();
  for (const line of lines) {
    add(byArticle, line.articleId, line.quantity);
    units.set(line.articleId, [...(units.get(line.articleId) ?? []), line.um3pl]);
  }
  return { ...tally(byArticle, lots), units };
}

/** The expiry dates `delivered` took of an article's lot (lot '' for expiry only), sorted. */
function datesShipped(delivered: Tally, articleId: number, lot: string): string[] {
  const prefix = `${lotKey(articleId, lot)}|`;
  return [...delivered.byExpiry.keys()].filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length)).sort();
}

function checkLot(line: ResolvedLine, delivered: Tally, returned: Tally, orderId: number, problems: Problems): void {
  const key = lotKey(line.articleId, line.lot);
  const got = delivered.byLot.get(key);
  if (got === undefined) return problems.add(`items.${line.index}.lot`, messages.lotNotShipped(line.lot, orderId));
  const total = add(returned.byLot, key, line.quantity);
  if (total > got) problems.add(`items.${line.index}.quantity_um3pl`, messages.tooMuchOfLot(line.lot, toQuantity(Math.max(got - total + line.quantity, 0)), toQuantity(got)));
}

function checkExpiry(line: ResolvedLine, delivered: Tally, returned: Tally, orderId: number, problems: Problems): void {
  const dates = datesShipped(delivered, line.articleId, line.lot);
  // Shipped without dates (the article tracked none then): the article's own cap decides.
  if (dates.length === 0) return;
  const what = line.lot === '' ? `article ${line.articleCode}` : `lot ${line.lot} of article ${line.articleCode}`;
  const got = delivered.byExpiry.get(expiryKey(line.articleId, line.lot, line.expiryDate));
  if (got === undefined) return problems.add(`items.${line.index}.expiry_date`, messages.expiryNotShipped(what.charAt(0).toUpperCase() + what.slice(1), orderId, dates));
  const total = add(returned.byExpiry, expiryKey(line.articleId, line.lot, line.expiryDate), line.quantity);
  const field = `items.${line.index}.quantity_um3pl`;
  if (total > got && !problems.has(field)) problems.add(field, messages.tooMuchOfExpiry(what, line.expiryDate, toQuantity(Math.max(got - total + line.quantity, 0)), toQuantity(got)));
}

function checkArticle(line: ResolvedLine, delivered: Delivered, returned: Tally, orderId: number, problems: Problems): void {
  const got = delivered.byArticle.get(line.articleId);
  if (got === undefined) return problems.add(`items.${line.index}.article_id`, messages.notDelivered(line.articleId, orderId));
  // The article changed its unit since (allowed once nothing is on hand or on open lines).
  const units = delivered.units.get(line.articleId) ?? [];
  if (!units.some((unit) => sameCode(unit, line.um3pl))) return problems.add(`items.${line.index}.um3pl`, messages.otherUnit(orderId, line.articleCode, units, line.um3pl));
  const total = add(returned.byArticle, line.articleId, line.quantity);
  if (total > got) problems.add(`items.${line.index}.quantity_um3pl`, messages.tooMuch(toQuantity(Math.max(got - total + line.quantity, 0)), toQuantity(got)));
}

/**
 * Checks the return's lines against what sales order `orderId` delivered and what earlier returns
 * took back; `returned` grows by each line, so that the lines of one return count together.
 */
export function checkAgainstDelivery(lines: readonly ResolvedLine[], delivered: Delivered, returned: Tally, orderId: number, problems: Problems): void {
  for (const line of lines) {
    if (line.lot !== '') checkLot(line, delivered, returned, orderId, problems);
    if (line.expiryDate !== '') checkExpiry(line, delivered, returned, orderId, problems);
  }
  for (const line of lines) checkArticle(line, delivered, returned, orderId, problems);
}
