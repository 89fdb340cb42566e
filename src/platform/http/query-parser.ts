/**
 * The query string parser: form style, as most HTTP clients encode (`+` is a space), except that a
 * date-time whose `+` offset came unencoded (and so reads as a space) gets its `+` back:
 * `updated_since=2026-01-01T02:00:00+02:00` means +02:00, never a space.
 */
import { parse, type ParsedUrlQuery } from 'node:querystring';

const OFFSET_AS_SPACE = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?) (\d{2}(?::?\d{2})?)$/;

function restoreOffset(value: string): string {
  return value.replace(OFFSET_AS_SPACE, '$1+$2');
}

export function parseQuery(text: string): ParsedUrlQuery {
  const query = parse(text);
  for (const [key, value] of Object.entries(query)) {
    query[key] = Array.isArray(value) ? value.map(restoreOffset) : value === undefined ? value : restoreOffset(value);
  }
  return query;
}
