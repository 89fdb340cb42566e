/**
 * Document lines (purchase orders, sales orders, returns, receptions): each names an active
 * article of the document's client in that article's unit, with a quantity that passes the
 * quantity rules and the whole-number rule. Every line is checked and every problem reported at
 * once, keyed by the line's path (`items.0.quantity_um3pl`).
 *
 * The articles are read in the writer's transaction and locked in share mode there (MySQL/MariaDB;
 * SQLite runs one transaction at a time): an article's unit and whole-number flag change only
 * under an exclusive lock of its row (articles.service.ts), so a line is never written in a unit,
 * or with a fraction, that its article no longer takes (documents.repository.ts reads them).
 */
import type { Knex } from 'knex';
import { parseQuantity, wholeNumberViolation, type ParsedQuantity } from '../../kernel/quantity.js';
import { asciiUpper, sameCode } from '../../kernel/text.js';
import type { Problems } from '../../platform/problems.js';
import { unitFlags } from '../reference/reference.service.js';
import { lineLot, tracksLots, type LotInputFields } from './document-lots.js';
import { articlesOfLines, type LineArticle } from './documents.repository.js';

export interface LineInput extends LotInputFields {
  article_id: number;
  um3pl: string;
  quantity_um3pl?: number | string;
}

export interface ResolvedLine {
  /** The line's position in the body. */
  index: number;
  articleId: number;
  articleCode: string;
  um3pl: string;
  /** Thousandths. */
  quantity: number;
  /** Whether the article is active (a deactivated one is on the line because `kept` allowed it). */
  active: boolean;
  /** Whether the article keeps stock per lot or expiry date. */
  tracked: boolean;
  /** The line's lot and expiry date as stored ('' for none); both '' unless `options.lots` read them. */
  lot: string;
  expiryDate: string;
}

export interface QuantityRule {
  unit: string;
  articleCode: string;
  articleWholeOnly: boolean;
  units: ReadonlyMap<string, boolean>;
}

/** A line's quantity in thousandths, or its message (quantity rules, then the whole-number rule). */
export function lineQuantity(value: unknown, rule: QuantityRule, parse: (value: unknown) => ParsedQuantity = parseQuantity): ParsedQuantity {
  const parsed = parse(value);
  if (!parsed.ok) return parsed;
  const violation = wholeNumberViolation(parsed.thousandths, {
    unit: rule.unit,
    unitWholeOnly: rule.units.get(asciiUpper(rule.unit)) ?? false,
    articleCode: rule.articleCode,
    articleWholeOnly: rule.articleWholeOnly,
  });
  return violation ? { ok: false, message: violation } : parsed;
}

/** The quantity rule of a line of `articleId` in `unit`, from the client's articles and the provider's units. */
export type RuleFor = (articleId: number, unit: string) => QuantityRule;

/**
 * The quantity rules of lines of existing document lines' articles, and the articles as read (and
 * share-locked) in the writer's transaction: a change of an article's unit or tracking waits for
 * the writer, or the writer reads it as committed.
 */
export async function lineArticles(tx: Knex, context: { clientId: number; providerId: number }, articleIds: number[]): Promise<{ ruleFor: RuleFor; articles: Map<number, LineArticle> }> {
  const [articles, units] = await Promise.all([
    articlesOfLines(tx, [context.clientId], [...new Set(articleIds)], { share: true }),
    unitFlags(tx, context.providerId),
  ]);
  const ruleFor: RuleFor = (articleId, unit) => {
    const article = articles.get(articleId);
    return { unit, articleCode: article?.article_code ?? String(articleId), articleWholeOnly: Boolean(article?.integer_only_um3pl_quantity), units };
  };
  return { ruleFor, articles };
}

/** The quantity rules of lines of existing document lines' articles (lineArticles). */
export async function quantityRules(tx: Knex, context: { clientId: number; providerId: number }, articleIds: number[]): Promise<RuleFor> {
  return (await lineArticles(tx, context, articleIds)).ruleFor;
}

export interface LineContext {
  /** The document's client; undefined when it is not known (its partner was refused): lines are then checked against the clients in scope. */
  clientId: number | undefined;
  /** The clients in scope. */
  clientIds: readonly number[];
  providerId: number;
}

export interface LineOptions {
  problems: Problems;
  /** The path of the lines in the body (default `items`). */
  prefix?: string;
  /** Articles the document already has lines of: they may stay on it though deactivated since. */
  kept?: ReadonlySet<number>;
  /**
   * Where a line keeps its quantity and how it is read, when that is not `quantity_um3pl` greater
   * than 0 (an adjustment's signed `delta_um3pl`, or a count). The whole-number rule applies alike.
   */
  quantity?: (line: LineInput, index: number) => { field: string; value: unknown; parse: (value: unknown) => ParsedQuantity };
  /**
   * Read the lines' `lot` and `expiry_date` (document-lots.ts): `inbound` for goods that arrive or
   * are counted, `pin` for a sales order line's pinned lot. Without it a line's lot is ''.
   */
  lots?: 'inbound' | 'pin';
}

const messages = {
  notOfClient: (id: number) => `Article ${id} is not an article of this client.`,
  notInScope: (id: number) => `Article ${id} is not an article of a client in scope.`,
  inactive: (code: string) => `Article ${code} is deactivated; it cannot go on new lines.`,
  unit: (unit: string) => `The unit must be the article's unit, ${unit}.`,
};

/**
 * The lines resolved against their articles, in the caller's transaction; each problem joins
 * `options.problems` (the caller throws them with its own). Only the lines without problems are answered.
 */
/**
 * Whether `lines` are a document's lines as stored: the same articles, units, quantities (in
 * thousandths) and pinned lots ('' or null for none), in the same order. A document sent again
 * with its own lines changes nothing (its lines keep their ids).
 */
export function sameLines(lines: readonly ResolvedLine[], stored: ReadonlyArray<{ article_id: number; um3pl: string; quantity: number | string; lot?: string | null }>): boolean {
  return (
    lines.length === stored.length &&
    lines.every((l, i) => {
      const s = stored[i]!;
      return l.articleId === s.article_id && l.um3pl === s.um3pl && l.quantity === Number(s.quantity) && l.lot === (s.lot ?? '');
    })
  );
}

export async function resolveLines(tx: Knex, context: LineContext, lines: readonly LineInput[], options: LineOptions): Promise<ResolvedLine[]> {
  const prefix = options.prefix ?? 'items';
  const clients = context.clientId === undefined ? context.clientIds : [context.clientId];
  const [articles, units] = await Promise.all([
    articlesOfLines(tx, clients, [...new Set(lines.map((l) => l.article_id))], { share: true }),
    unitFlags(tx, context.providerId),
  ]);
  const resolved: ResolvedLine[] = [];
  lines.forEach((line, i) => {
    const problem = (field: string, message: string) => options.problems.add(`${prefix}.${i}.${field}`, message);
    const article = articles.get(line.article_id);
    if (!article) return problem('article_id', context.clientId === undefined ? messages.notInScope(line.article_id) : messages.notOfClient(line.article_id));
    if (!article.active && !options.kept?.has(article.id)) return problem('article_id', messages.inactive(article.article_code));
    if (!sameCode(line.um3pl, article.um3pl)) return problem('um3pl', messages.unit(article.um3pl));
    const source = options.quantity?.(line, i) ?? { field: 'quantity_um3pl', value: line.quantity_um3pl, parse: parseQuantity };
    const rule = { unit: article.um3pl, articleCode: article.article_code, articleWholeOnly: Boolean(article.integer_only_um3pl_quantity), units };
    const quantity = lineQuantity(source.value, rule, source.parse);
    const lot = options.lots ? lineLot(article, line, options.lots, problem) : { lot: '', expiryDate: '' };
    if (!quantity.ok) return problem(source.field, quantity.message);
    if (!lot) return;
    resolved.push({
      index: i,
      articleId: article.id,
      articleCode: article.article_code,
      um3pl: article.um3pl,
      quantity: quantity.thousandths,
      active: Boolean(article.active),
      tracked: tracksLots(article),
      ...lot,
    });
  });
  return resolved;
}
