/** The one order in which transactions take stock balance rows. */
import type { StockKey } from './stock.repository.js';

/**
 * The order in which a transaction that changes several balances must change them: by article,
 * then stock type, then warehouse. Every writer of stock takes its balance rows in this one order,
 * so two of them never each hold a row the other waits for (on MariaDB, a deadlock that costs both
 * a retry). Each line keeps the index it had, for the field its errors are reported on.
 */
export function inLockOrder<T>(lines: readonly T[], keyOf: (line: T) => { articleId: number; stockType?: string; warehouseId?: number }): Array<{ line: T; index: number }> {
  const keyed = lines.map((line, index) => ({ line, index, key: keyOf(line) }));
  keyed.sort(
    (a, b) =>
      a.key.articleId - b.key.articleId ||
      (a.key.stockType ?? '').localeCompare(b.key.stockType ?? '') ||
      (a.key.warehouseId ?? 0) - (b.key.warehouseId ?? 0) ||
      a.index - b.index,
  );
  return keyed.map(({ line, index }) => ({ line, index }));
}

/** A balance's key as one value (for maps of balances a document touches). */
export function balanceKeyOf(key: StockKey): string {
  return `${key.clientId}|${key.warehouseId}|${key.articleId}|${key.stockType}|${key.lot ?? ''}|${key.expiryDate ?? ''}`;
}
