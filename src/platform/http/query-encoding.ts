/**
 * Query values whose percent-encoded bytes are not UTF-8 (`search=Caf%E9`, é in Latin-1): the
 * query parser (node:querystring) reads each such byte as U+FFFD, and the request then ran for
 * text nobody sent (a search for `Caf\uFFFD`, its links echoing `Caf%EF%BF%BD`). Each is reported in
 * the validator's shape, beside the other problems of the request. A `%` not followed by two hex
 * digits stays the `%` it reads as (`search=50%`), as before.
 */
import { isUtf8 } from 'node:buffer';
import { unescape } from 'node:querystring';
import type { Request } from 'express';
import type { ValidatorErrorItem } from './validation-errors.js';

/** A percent-encoded byte above 0x7F: only such a query can hold bytes that are not UTF-8. */
const HIGH_BYTE = /%[89a-f][0-9a-f]/i;
const NONE: readonly ValidatorErrorItem[] = [];
/**
 * The bytes a query value stands for: each %XX its byte, every other character the byte Node read
 * it from (the request line is read as Latin-1, one character per byte).
 */
function bytesOf(value: string): Buffer {
  return Buffer.from(value.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1');
}

const MESSAGE = 'must be UTF-8 text, percent-encoded: its bytes are not UTF-8 (é is %C3%A9, not %E9 as in Latin-1)';

/** Each query parameter whose value's bytes are not UTF-8 (on every request: a look at the URL when none is). */
export function undecodableParameters(req: Request): readonly ValidatorErrorItem[] {
  const url = req.url;
  const start = url.indexOf('?');
  // The whole URL (no copy of its query): a high byte in the path only costs the split below.
  if (start < 0 || !HIGH_BYTE.test(url)) return NONE;
  const found: ValidatorErrorItem[] = [];
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    const value = pair.slice(equals + 1).replace(/\+/g, ' ');
    if (isUtf8(bytesOf(value))) continue;
    const path = `/query/${unescape(pair.slice(0, equals).replace(/\+/g, ' '))}`;
    if (!found.some((item) => item.path === path)) found.push({ path, message: MESSAGE, errorCode: 'format.openapi.validation' });
  }
  return found;
}
