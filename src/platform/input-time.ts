/** `updated_since` and other client times, as stored, or a 422 on the field (REST) or argument (GraphQL). */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { fromApiTime } from '../kernel/time.js';
import { InputError } from './errors.js';

/** The request validator's `date-time` check (ajv-formats' full one), for times that did not pass it (GraphQL's arguments). */
const isDateTime = (fullFormats['date-time'] as { validate: (value: string) => boolean }).validate;

/**
 * What a client time must be, in every refusal of one (REST fields and parameters, GraphQL
 * arguments): a time without an offset (`2026-01-01T00:00:00`) is ISO 8601 too, a local time, and
 * the refusal says what it lacks.
 */
export const DATE_TIME_EXPECTED = 'an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z';

/** `noun`: what the client calls `field`, a REST field or parameter, or a GraphQL argument. */
export function inputTime(value: string | undefined, field = 'updated_since', noun: 'field' | 'argument' = 'field'): string | undefined {
  if (value === undefined) return undefined;
  const refusal = (what: string) => InputError.field(field, `The ${field} ${noun} must be ${what}.`);
  if (!isDateTime(value)) throw refusal(DATE_TIME_EXPECTED);
  try {
    return fromApiTime(value);
  } catch (error) {
    throw refusal(error instanceof RangeError ? 'a time of the years 0000 to 9999 in UTC' : DATE_TIME_EXPECTED);
  }
}
