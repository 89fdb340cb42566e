/**
 * The quantities of an adjustment line: a signed change (`delta_um3pl`, not 0) or a count
 * (`counted_um3pl`, 0 or more, at most what a balance holds), exactly one of them. Each is read like any quantity (a JSON number
 * or a string with a decimal point or comma, at most 3 decimals, kept as thousandths); the sign
 * and zero are the only differences.
 */
import { MAX_BALANCE, MAX_QUANTITY, parseQuantity, type ParsedQuantity } from '../../kernel/quantity.js';

export const messages = {
  zeroDelta: 'The delta must not be 0: give a positive quantity to add stock, or a negative one to take it away.',
  deltaFormat: 'The delta must be a number with at most 3 decimals, such as 2, -1.5 or "-1,5": a minus right before the digits to take stock away, no sign to add it.',
  deltaRange: `The delta must be between -${MAX_QUANTITY} and ${MAX_QUANTITY}.`,
  negativeCount: 'The count must be 0 or more.',
  both: 'Give either delta_um3pl or counted_um3pl on a line, not both.',
  neither: 'Give delta_um3pl (a signed change) or counted_um3pl (what a count found).',
};

/** Zero as a client may write it: 0, "0", "0.0", "0,000", "0.0000" (trailing zeros are no precision). */
const ZERO = /^0+(?:[.,]0+)?$/;

function isZero(value: unknown): boolean {
  if (typeof value === 'number') return value === 0;
  return typeof value === 'string' && ZERO.test(value.trim());
}

/**
 * The sign of a value and what is left without it: a negative number, or a string whose minus
 * stands right before its digits ("-1,5"). Undefined for a sign the API does not read: a plus
 * ("+5"), a minus apart from the digits ("- 1"), two of them ("--1").
 */
function signed(value: unknown): { negative: boolean; magnitude: unknown } | undefined {
  if (typeof value === 'number') return { negative: value < 0, magnitude: Math.abs(value) };
  if (typeof value !== 'string') return { negative: false, magnitude: value };
  const text = value.trim();
  if (!/^[-+]/.test(text)) return { negative: false, magnitude: text };
  return /^-\d/.test(text) ? { negative: true, magnitude: text.slice(1) } : undefined;
}

/**
 * A signed change of stock in thousandths, at most MAX_QUANTITY either way; 0 is refused. Its
 * shape and range are told as a delta's (a sign, both bounds); decimals and type as any quantity's.
 */
export function parseDelta(value: unknown): ParsedQuantity {
  const sign = signed(value);
  if (!sign) return { ok: false, message: messages.deltaFormat };
  if (isZero(sign.magnitude)) return { ok: false, message: messages.zeroDelta };
  const parsed = parseQuantity(sign.magnitude);
  if (parsed.ok) return sign.negative ? { ok: true, thousandths: -parsed.thousandths } : parsed;
  if (parsed.problem === 'format') return { ok: false, message: messages.deltaFormat };
  if (parsed.problem === 'max') return { ok: false, message: messages.deltaRange };
  return parsed;
}

/**
 * A count in thousandths: 0 or more (0 in any spelling, "-0" too, as the number -0 is), up to what
 * a balance may hold (MAX_BALANCE), since it sets the balance; its delta may then be larger than any
 * line's. A sign the API does not read ("+5", "- 1") is a quantity's format message.
 */
export function parseCount(value: unknown): ParsedQuantity {
  const sign = signed(value);
  if (!sign) return parseQuantity(value, MAX_BALANCE);
  if (isZero(sign.magnitude)) return { ok: true, thousandths: 0 };
  if (sign.negative) return { ok: false, message: messages.negativeCount };
  return parseQuantity(sign.magnitude, MAX_BALANCE);
}

export interface AdjustmentLineInput {
  delta_um3pl?: number | string;
  counted_um3pl?: number | string;
}

/** Which field of a line holds its quantity and how it is read; a line with both or neither fails on the field named. */
export function quantitySource(line: AdjustmentLineInput): { field: string; value: unknown; parse: (value: unknown) => ParsedQuantity } {
  const hasDelta = line.delta_um3pl !== undefined;
  const hasCount = line.counted_um3pl !== undefined;
  if (hasDelta && hasCount) return { field: 'counted_um3pl', value: undefined, parse: () => ({ ok: false, message: messages.both }) };
  if (hasCount) return { field: 'counted_um3pl', value: line.counted_um3pl, parse: parseCount };
  if (hasDelta) return { field: 'delta_um3pl', value: line.delta_um3pl, parse: parseDelta };
  return { field: 'delta_um3pl', value: undefined, parse: () => ({ ok: false, message: messages.neither }) };
}

/**
 * Whether a line can only take stock away or record a count (what a deactivated article's stock may
 * still get: its leftovers are written off, never added to).
 */
export function takesAwayOrCounts(line: AdjustmentLineInput): boolean {
  if (line.counted_um3pl !== undefined) return line.delta_um3pl === undefined;
  const delta = parseDelta(line.delta_um3pl);
  return delta.ok && delta.thousandths < 0;
}
