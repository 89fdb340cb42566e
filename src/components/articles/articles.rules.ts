/** Rules of article fields, pure. */
import { InputError } from '../../platform/errors.js';

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

/** Only the fields of `next` whose values differ from `current`. */
export function changedFields<T extends object>(current: T, next: Partial<T>): Partial<T> {
  const changes: Partial<T> = {};
  for (const [key, value] of Object.entries(next) as Array<[keyof T, T[keyof T]]>) {
    if (value !== undefined && value !== normalizeBoolean(current[key])) changes[key] = value;
  }
  return changes;
}

/** SQLite and MySQL answer booleans as 0/1. */
function normalizeBoolean(value: unknown): unknown {
  return value === 0 || value === 1 ? Boolean(value) : value;
}
