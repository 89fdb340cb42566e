/**
 * The quantities of an adjustment line: a signed change (`delta_um3pl`, not 0) or a count
 * (`counted_um3pl`, 0 or more, at most what a balance holds), exactly one of them. Each is read like any quantity (a JSON number
 * or a string with a decimal point or comma, at most 3 decimals, kept as thousandths); the sign
 * and zero are the only differences.
 */
import { MAX_BALANCE, parseQuantity, type ParsedQuantity } from '../../kernel/quantity.js';

export const messages = {
  zeroDelta: 'The delta must not be 0: give a positive quantity to add stock, or a negative one to take it away.',
  deltaFormat: 'The delta must be a number with at most 3 decimals, such as 2, -1.5 or "-1,5".',
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

/** The sign of a value and what is left without it (a leading minus of a string, or a negative number). */
function unsigned(value: unknown): { negative: boolean; magnitude: unknown } {
  if (typeof value === 'number') return value < 0 ? { negative: true, magnitude: -value } : { negative: false, magnitude: value };
  if (typeof value === 'string' && value.trim().startsWith('-')) return { negative: true, magnitude: value.trim().slice(1) };
  return { negative: false, magnitude: value };
}

function negate(parsed: ParsedQuantity): ParsedQuantity {
  return parsed.ok ? { ok: true, thousandths: -parsed.thousandths } : parsed;
}

/** A signed change of stock in thousandths; 0 is refused. */
export function parseDelta(value: unknown): ParsedQuantity {
  if (isZero(unsigned(value).magnitude)) return { ok: false, message: messages.zeroDelta };
  const { negative, magnitude } = unsigned(value);
  if (negative && unsigned(magnitude).negative) return { ok: false, message: messages.deltaFormat };
  const parsed = parseQuantity(magnitude);
  return negative ? negate(parsed) : parsed;
}

/**
 * A count in thousandths: 0 or more, up to what a balance may hold (MAX_BALANCE), since it sets the
 * balance; its delta may then be larger than any line's.
 */
export function parseCount(value: unknown): ParsedQuantity {
  if (isZero(value)) return { ok: true, thousandths: 0 };
  if (unsigned(value).negative) return { ok: false, message: messages.negativeCount };
  return parseQuantity(value, MAX_BALANCE);
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
