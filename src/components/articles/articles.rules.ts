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
