/** How the messages of stock refusals name a balance: its stock type, article, lot and expiry date when it has them, and warehouse. */
import type { StockKey } from './stock.repository.js';

/** `STOC_OK stock of article YOG-1 (lot L7, expiring 2027-01-15) in warehouse 3`; without the parenthesis for an untracked article. */
export function balanceName(key: StockKey & { articleCode: string }): string {
  const tracked = [key.lot ? `lot ${key.lot}` : '', key.expiryDate ? `expiring ${key.expiryDate}` : ''].filter(Boolean).join(', ');
  return `${key.stockType} stock of article ${key.articleCode}${tracked ? ` (${tracked})` : ''} in warehouse ${key.warehouseId}`;
}
