/**
 * The lot and expiry date of a document line, checked against its article: an article that tracks
 * lots needs a `lot` on every inbound line, one that tracks expiry an `expiry_date`, and an article
 * that tracks neither refuses them (a lot on untracked stock would be a balance nobody can find).
 * A sales order line may only pin a lot (`pin`): never required, refused for an article without lots.
 */
import { hasControlCharacter } from '../../kernel/text.js';

/** What of an article the lot rules read. */
export interface LotArticle {
  article_code: string;
  lot_tracked: boolean | number;
  expiry_tracked: boolean | number;
}

/** A line's lot and expiry as the stock key stores them ('' for none). */
export interface LineLot {
  lot: string;
  expiryDate: string;
}

export interface LotInputFields {
  lot?: string | null;
  expiry_date?: string | null;
}

export const lotMessages = {
  lotRequired: (code: string) => `Article ${code} tracks lots: give the line's lot.`,
  lotRefused: (code: string) => `Article ${code} does not track lots: leave the lot out.`,
  lotBlank: 'The lot must not begin or end with spaces, nor hold control characters.',
  expiryRequired: (code: string) => `Article ${code} tracks expiry dates: give the line's expiry_date.`,
  expiryRefused: (code: string) => `Article ${code} does not track expiry dates: leave the expiry_date out.`,
};


/** Whether the article keeps its stock per lot or expiry date (and so is allocated earliest expiry first). */
export function tracksLots(article: Pick<LotArticle, 'lot_tracked' | 'expiry_tracked'>): boolean {
  return Boolean(article.lot_tracked) || Boolean(article.expiry_tracked);
}

/**
 * The line's lot and expiry date, or undefined after reporting each problem through `problem`
 * (called with the field, `lot` or `expiry_date`, and the message). `mode`: `inbound` (goods that
 * arrive or are counted: required as the article tracks them), `pin` (a sales order line: a lot
 * only, optional).
 */
export function lineLot(article: LotArticle, line: LotInputFields, mode: 'inbound' | 'pin', problem: (field: 'lot' | 'expiry_date', message: string) => void): LineLot | undefined {
  let ok = true;
  const fail = (field: 'lot' | 'expiry_date', message: string) => {
    ok = false;
    problem(field, message);
  };
  const lot = line.lot ?? undefined;
  const expiry = line.expiry_date ?? undefined;
  if (lot !== undefined && !article.lot_tracked) fail('lot', lotMessages.lotRefused(article.article_code));
  else if (lot !== undefined && (lot.trim() !== lot || hasControlCharacter(lot))) fail('lot', lotMessages.lotBlank);
  else if (lot === undefined && article.lot_tracked && mode === 'inbound') fail('lot', lotMessages.lotRequired(article.article_code));
  if (mode === 'inbound') {
    if (expiry !== undefined && !article.expiry_tracked) fail('expiry_date', lotMessages.expiryRefused(article.article_code));
    else if (expiry === undefined && article.expiry_tracked) fail('expiry_date', lotMessages.expiryRequired(article.article_code));
  }
  return ok ? { lot: lot ?? '', expiryDate: mode === 'inbound' ? (expiry ?? '') : '' } : undefined;
}
