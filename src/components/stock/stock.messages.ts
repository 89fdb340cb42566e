/** How the messages of stock refusals name a balance and tell a shortfall. */
import { toQuantity } from '../../kernel/quantity.js';
import type { StockKey } from './stock.repository.js';

/** `STOC_OK stock of article YOG-1 (lot L7, expiring 2027-01-15) in warehouse 3`; without the parenthesis for an untracked article. */
export function balanceName(key: StockKey & { articleCode: string }): string {
  const tracked = [key.lot ? `lot ${key.lot}` : '', key.expiryDate ? `expiring ${key.expiryDate}` : ''].filter(Boolean).join(', ');
  return `${key.stockType} stock of article ${key.articleCode}${tracked ? ` (${tracked})` : ''} in warehouse ${key.warehouseId}`;
}

/**
 * Other lines of one document on the same balance (and lot pin) as the line delivered: what those
 * before it took (thousandths), what all of them need together, and how to name them ("the
 * order's lines"). A shortfall is then told for the document, not as what the lines before left.
 */
export interface SharedNeed {
  taken: number;
  needed: number;
  by: string;
}

/**
 * `1.234 on hand, 1.5 needed by the order's lines, short by 0.266`: what there is (`have`, in
 * thousandths, named by `haveWord`) against what is needed; with `shared`, as it was before the
 * document's lines on the balance, against all they need.
 */
export function shortBy(have: number, needed: number, haveWord: string, shared?: SharedNeed): string {
  const had = have + (shared?.taken ?? 0);
  const all = shared?.needed ?? needed;
  return `${toQuantity(had)} ${haveWord}, ${toQuantity(all)} needed${shared ? ` by ${shared.by}` : ''}, short by ${toQuantity(all - had)}`;
}
