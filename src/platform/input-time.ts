/** `updated_since` and other client times, as stored, or a 422 on the field. */
import { fromApiTime } from '../kernel/time.js';
import { InputError } from './errors.js';

export function inputTime(value: string | undefined, field = 'updated_since'): string | undefined {
  if (value === undefined) return undefined;
  try {
    return fromApiTime(value);
  } catch (error) {
    if (error instanceof RangeError) throw InputError.field(field, `The ${field} field must be a time of the years 0000 to 9999 in UTC.`);
    throw InputError.field(field, `The ${field} field must be an ISO 8601 date-time, such as 2026-11-21T10:00:00Z.`);
  }
}
