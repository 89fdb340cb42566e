/**
 * Document lines (purchase orders, sales orders, returns, receptions): each names an article of
 * the document's client in that article's unit, with a quantity that passes the quantity rules
 * and the whole-number rule. Every line is checked and every problem reported at once, keyed by
 * the line's path (`items.0.quantity_um3pl`).
 */
import type { Knex } from 'knex';
import { parseQuantity, wholeNumberViolation } from '../../kernel/quantity.js';
import { InputError, type FieldErrors } from '../../platform/errors.js';
import { unitFlags } from '../reference/reference.service.js';
import * as repository from './articles.repository.js';

export interface LineInput {
  article_id: number;
  um3pl: string;
  quantity_um3pl: number | string;
}

export interface ResolvedLine {
  articleId: number;
  articleCode: string;
  um3pl: string;
  /** Thousandths. */
  quantity: number;
}

export interface QuantityRule {
  unit: string;
  articleCode: string;
  articleWholeOnly: boolean;
  units: ReadonlyMap<string, boolean>;
}

/** A line's quantity in thousandths, or its message (quantity rules, then the whole-number rule). */
export function lineQuantity(value: unknown, rule: QuantityRule): { ok: true; thousandths: number } | { ok: false; message: string } {
  const parsed = parseQuantity(value);
  if (!parsed.ok) return parsed;
  const violation = wholeNumberViolation(parsed.thousandths, {
    unit: rule.unit,
    unitWholeOnly: rule.units.get(rule.unit.toUpperCase()) ?? false,
    articleCode: rule.articleCode,
    articleWholeOnly: rule.articleWholeOnly,
  });
  return violation ? { ok: false, message: violation } : parsed;
}

/** The quantity rule of a line of `articleId` in `unit`, from the client's articles and the provider's units. */
export type RuleFor = (articleId: number, unit: string) => QuantityRule;

export async function quantityRules(db: Knex, context: { clientId: number; providerId: number }, articleIds: number[]): Promise<RuleFor> {
  const [articles, units] = await Promise.all([repository.findForClient(db, context.clientId, [...new Set(articleIds)]), unitFlags(db, context.providerId)]);
  return (articleId, unit) => {
    const article = articles.get(articleId);
    return { unit, articleCode: article?.article_code ?? String(articleId), articleWholeOnly: Boolean(article?.integer_only_um3pl_quantity), units };
  };
}

export function addError(errors: FieldErrors, path: string, message: string): void {
  (errors[path] ??= []).push(message);
}

export async function resolveLines(
  db: Knex,
  context: { clientId: number; providerId: number },
  lines: readonly LineInput[],
  prefix = 'items',
): Promise<ResolvedLine[]> {
  const [articles, units] = await Promise.all([
    repository.findForClient(db, context.clientId, [...new Set(lines.map((l) => l.article_id))]),
    unitFlags(db, context.providerId),
  ]);
  const errors: FieldErrors = {};
  const resolved: ResolvedLine[] = [];
  lines.forEach((line, i) => {
    const article = articles.get(line.article_id);
    if (!article) return addError(errors, `${prefix}.${i}.article_id`, `Article ${line.article_id} is not an article of this client.`);
    if (line.um3pl.toUpperCase() !== article.um3pl.toUpperCase()) {
      return addError(errors, `${prefix}.${i}.um3pl`, `The unit must be the article's unit, ${article.um3pl}.`);
    }
    const quantity = lineQuantity(line.quantity_um3pl, {
      unit: article.um3pl,
      articleCode: article.article_code,
      articleWholeOnly: Boolean(article.integer_only_um3pl_quantity),
      units,
    });
    if (!quantity.ok) return addError(errors, `${prefix}.${i}.quantity_um3pl`, quantity.message);
    resolved.push({ articleId: article.id, articleCode: article.article_code, um3pl: article.um3pl, quantity: quantity.thousandths });
  });
  if (Object.keys(errors).length > 0) throw new InputError(errors);
  return resolved;
}
