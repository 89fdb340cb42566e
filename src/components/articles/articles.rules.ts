/** Rules of article fields, pure. */
import { isWholeQuantity, toQuantity } from '../../kernel/quantity.js';
import { InputError, type FieldErrors } from '../../platform/errors.js';

/**
 * `integer_only` is an alias of `integer_only_um3pl_quantity`: either may be sent, both only when
 * they agree. Answers the value meant, or undefined when neither was sent.
 */
export function integerOnlyOf(body: { integer_only?: boolean; integer_only_um3pl_quantity?: boolean }): boolean | undefined {
  const { integer_only: alias, integer_only_um3pl_quantity: field } = body;
  if (alias !== undefined && field !== undefined && alias !== field) {
    throw InputError.field('integer_only', 'The integer_only field is an alias of integer_only_um3pl_quantity and must not contradict it.');
  }
  return field ?? alias;
}

/** The name the client sent the whole-number flag under (the alias when only the alias was sent). */
export function integerOnlyField(body: { integer_only?: boolean; integer_only_um3pl_quantity?: boolean }): string {
  return body.integer_only_um3pl_quantity === undefined && body.integer_only !== undefined ? 'integer_only' : 'integer_only_um3pl_quantity';
}

/** What of an article is in use, in thousandths: its stock balances that are not zero, and its lines on open documents. */
export interface ArticleUsage {
  readonly balances: ReadonlyArray<{ quantity: number; reserved: number }>;
  /** `document` names it for a person (`purchase order PO-1`); `quantities` are what the line holds (ordered, received). */
  readonly openLines: ReadonlyArray<{ document: string; quantities: readonly number[] }>;
}

/** The changes of a write the unit rules look at, each keyed by the field as the client named it. */
export interface UnitRuleChange {
  /** Set when the unit changes: `um3pl`, or `uom` / `unit` through the master-data aliases. */
  unitField?: string;
  /** Set when the whole-number flag turns on: `integer_only_um3pl_quantity` or `integer_only`. */
  wholeOnlyField?: string;
  /** The tracking flags that change (`lot_tracked`, `expiry_tracked`): stock is kept per lot and expiry date or not. */
  trackingFields?: readonly string[];
}

const LISTED = 3;

function describe(usage: ArticleUsage): string {
  const parts: string[] = [];
  if (usage.balances.length > 0) {
    const onHand = usage.balances.reduce((sum, b) => sum + b.quantity, 0);
    const reserved = usage.balances.reduce((sum, b) => sum + b.reserved, 0);
    parts.push(`${toQuantity(onHand)} on hand and ${toQuantity(reserved)} reserved`);
  }
  const documents = [...new Set(usage.openLines.map((l) => l.document))];
  if (documents.length > 0) {
    const more = documents.length - LISTED;
    parts.push(`lines on ${documents.slice(0, LISTED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
  }
  return parts.join('; ');
}

/** Only what holds a fraction. */
function fractional(usage: ArticleUsage): ArticleUsage {
  return {
    balances: usage.balances.filter((b) => !isWholeQuantity(b.quantity) || !isWholeQuantity(b.reserved)),
    openLines: usage.openLines.filter((l) => l.quantities.some((q) => !isWholeQuantity(q))),
  };
}

const inUse = (usage: ArticleUsage): boolean => usage.balances.length > 0 || usage.openLines.length > 0;

/**
 * The unit rules under stock: the unit cannot change while the article has any stock (on hand or
 * reserved) or any line on an open document, which would then be read in the new unit; the
 * whole-number flag cannot turn on while any of that holds a fraction. Answers the problems, keyed
 * as the client named the fields (none when the change may go ahead).
 */
export function unitRuleProblems(articleCode: string, change: UnitRuleChange, usage: ArticleUsage): FieldErrors {
  const problems: FieldErrors = {};
  if (change.unitField !== undefined && inUse(usage)) {
    problems[change.unitField] = [
      `The unit of article ${articleCode} cannot change while it has stock or lines on open documents (${describe(usage)}): they would be read in the new unit. Bring its stock to zero and finish or cancel those documents first.`,
    ];
  }
  for (const field of change.trackingFields ?? []) {
    if (!inUse(usage)) continue;
    problems[field] = [
      `The ${field} flag of article ${articleCode} cannot change while it has stock or lines on open documents (${describe(usage)}): its balances are kept ${field === 'lot_tracked' ? 'per lot' : 'per expiry date'} or not, and would no longer match. Bring its stock to zero and finish or cancel those documents first.`,
    ];
  }
  const fractions = fractional(usage);
  if (change.wholeOnlyField !== undefined && inUse(fractions)) {
    problems[change.wholeOnlyField] = [
      `Article ${articleCode} cannot take whole quantities only while its stock or lines on open documents hold fractions (${describe(fractions)}).`,
    ];
  }
  return problems;
}
