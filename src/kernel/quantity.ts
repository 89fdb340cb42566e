/**
 * Quantities (`quantity_um3pl`): a client sends a JSON number or a string such as "1,5" or "2.25"
 * (a decimal comma counts as a point). A quantity is greater than 0, has at most 3 decimals (trailing
 * zeros are no precision: "1.5000" is 1.5, as the JSON number 1.5000 is) and is kept exactly as
 * integer thousandths (1.5 -> 1500) on both databases, never as a float; the API shows it as a
 * JSON number again. Thousandths come from the decimal digits, never from n * 1000.
 */

/** The largest quantity accepted, in units (its thousandths stay far below 2^53). */
export const MAX_QUANTITY = 1_000_000_000;

/**
 * The most a stock balance holds on hand, and the most it has reserved, in units: 10^12, whose
 * thousandths (10^15) stay 9 times below 2^53, so a balance, its available and backordered
 * figures, and the sum of two balances are exact as JSON numbers. A document's lines of one
 * article together stay below it by the document's own bounds (at most 500 lines of MAX_QUANTITY).
 */
export const MAX_BALANCE = 1_000_000_000_000;

/** What was wrong with a quantity, for a caller that words it for its own field (a signed delta). */
export type QuantityProblem = keyof typeof MESSAGES | 'max';

export type ParsedQuantity = { ok: true; thousandths: number } | { ok: false; message: string; problem?: QuantityProblem };

const MESSAGES = {
  empty: 'The quantity must not be empty.',
  format: 'The quantity must be a number with at most 3 decimals, such as 12, 1.5 or "1,5".',
  decimals: 'The quantity may have at most 3 decimals.',
  positive: 'The quantity must be greater than 0.',
  type: 'The quantity must be a number, or a string such as "1,5".',
} as const;

/**
 * What a quantity of the wrong type answers (null, true, an object, a JSON number beyond a double):
 * request validation says it too, for every schema marked `x-quantity`.
 */
export const QUANTITY_TYPE_MESSAGE = MESSAGES.type;

/** What a quantity string longer than the document allows answers (request validation). */
export const quantityTooLong = (characters: number | string): string => `The quantity must not be longer than ${characters} characters.`;

/** An optional minus (only to tell negatives apart), digits, then at most one '.' or ',' and digits. */
const DECIMAL = /^(-?)(\d+)(?:[.,](\d+))?$/;

const tooLarge = (max: number): ParsedQuantity => ({ ok: false, message: `The quantity must not be greater than ${max}.`, problem: 'max' });

function fail(problem: keyof typeof MESSAGES): ParsedQuantity {
  return { ok: false, message: MESSAGES[problem], problem };
}

/**
 * Checks, in this order: the shape, the number of decimals (not counting trailing zeros), the sign
 * (and zero), the maximum (in units).
 */
function fromDecimal(text: string, max: number): ParsedQuantity {
  const match = DECIMAL.exec(text);
  if (!match) return fail('format');
  const [, minus, integer = '', written = ''] = match;
  const fraction = written.replace(/0+$/, '');
  if (fraction.length > 3) return fail('decimals');
  const digits = (integer + fraction.padEnd(3, '0')).replace(/^0+/, '');
  if (digits === '' || minus === '-') return fail('positive');
  if (digits.length > String(max).length + 3) return tooLarge(max);
  const thousandths = Number(digits); // at most 16 digits, so any above max * 1000 (≤ 10^15) reads as above it; the rest are exact
  if (thousandths > max * 1000) return tooLarge(max);
  return { ok: true, thousandths };
}

/**
 * Parses a client's quantity (JSON number, or string with a decimal point or comma) into exact
 * integer thousandths. `max`: the largest it may be, in units (a line's MAX_QUANTITY; a count, which
 * sets a whole balance, MAX_BALANCE).
 */
export function parseQuantity(value: unknown, max: typeof MAX_QUANTITY | typeof MAX_BALANCE = MAX_QUANTITY): ParsedQuantity {
  if (typeof value === 'string') {
    const text = value.trim();
    return text === '' ? fail('empty') : fromDecimal(text, max);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail('format');
    // String(n) is the shortest decimal that reads back as n: '1.005', '-2.5', '1e-7' or '1e+21'.
    const text = String(value);
    if (text.includes('e-')) return fail('decimals'); // only below 1e-6: more than 3 decimals
    return fromDecimal(text.includes('e+') ? BigInt(value).toString() : text, max);
  }
  return fail('type');
}

/** Thousandths as the API shows them: a JSON number (1500 -> 1.5). */
export function toQuantity(thousandths: number): number {
  if (!Number.isSafeInteger(thousandths)) throw new Error(`Not a stored quantity: ${thousandths}`);
  // One correctly rounded division: the nearest double to the decimal, so String() prints its digits.
  return thousandths / 1000;
}

export function isWholeQuantity(thousandths: number): boolean {
  return thousandths % 1000 === 0;
}

/** The whole-number rule: a message when a fractional quantity is not allowed, else undefined. */
export function wholeNumberViolation(
  thousandths: number,
  rule: { unit: string; unitWholeOnly: boolean; articleCode: string; articleWholeOnly: boolean },
): string | undefined {
  if (isWholeQuantity(thousandths)) return undefined;
  if (rule.unitWholeOnly) return `The quantity must be a whole number: unit ${rule.unit} is counted in whole units.`;
  if (rule.articleWholeOnly) return `The quantity must be a whole number: article ${rule.articleCode} takes whole quantities only.`;
  return undefined;
}

/** A quantity of an article by lot and expiry date (each '' where the article does not track it), in thousandths. */
export interface LotQuantity {
  articleId: number;
  lot: string;
  expiryDate: string;
  quantity: number;
}
