/** `updated_since` and other client times, as stored, or a 422 on the field. */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { fromApiTime } from '../kernel/time.js';
import { InputError } from './errors.js';

/** The request validator's `date-time` check (ajv-formats' full one), for times that did not pass it (GraphQL's arguments). */
const isDateTime = (fullFormats['date-time'] as { validate: (value: string) => boolean }).validate;

export function inputTime(value: string | undefined, field = 'updated_since'): string | undefined {
  if (value === undefined) return undefined;
  if (!isDateTime(value)) throw InputError.field(field, `The ${field} field must be an ISO 8601 date-time, such as 2026-11-21T10:00:00Z.`);
  try {
    return fromApiTime(value);
  } catch (error) {
    if (error instanceof RangeError) throw InputError.field(field, `The ${field} field must be a time of the years 0000 to 9999 in UTC.`);
    throw InputError.field(field, `The ${field} field must be an ISO 8601 date-time, such as 2026-11-21T10:00:00Z.`);
  }
}
