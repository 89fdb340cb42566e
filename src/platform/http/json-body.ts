/**
 * Step 3: JSON bodies up to 1 MiB, sent as they are or compressed (`Content-Encoding` gzip, deflate
 * or br; x-gzip is gzip, as RFC 9110 8.4.1.3 asks), in UTF-8 (no charset, `charset=utf-8`, its
 * alias `utf8`, or its subset `us-ascii`). Malformed JSON answers 400 and a larger body 413
 * (error-handler.ts); so do bytes that are not what their Content-Encoding says (400) and an
 * encoding or charset we do not take (415), right after the rate limits (which count it), before
 * any token is looked at. Bytes that are not UTF-8 (Latin-1 or Windows-1252 text sent without a
 * charset) are a 400 too: body-parser would read each as U+FFFD and store it so, two codes that
 * differ only there becoming one. A body the client stopped sending half-way is a 400 nobody reads (the
 * connection is gone), not a server error. GET and HEAD bodies are never read (no operation of the
 * document takes one, and the document declares no 400 or 413 for them).
 */
import { isUtf8 } from 'node:buffer';
import express from 'express';
import type { Request, RequestHandler } from 'express';
import { invalidUtf8At } from '../../kernel/utf8.js';
import { BadRequestError, UnsupportedMediaTypeError } from '../errors.js';

export const BODY_LIMIT = '1mb';

const shown = (value: string): string => (value.length > 40 ? `${value.slice(0, 40)}…` : value);

function contentEncoding(req: Request): string {
  return shown(req.headers['content-encoding'] ?? 'identity');
}

/** x-gzip as gzip (RFC 9110 8.4.1.3: a recipient SHOULD treat it so), before body-parser reads the header. */
function readXGzipAsGzip(req: Request): void {
  if (req.headers['content-encoding']?.trim().toLowerCase() === 'x-gzip') req.headers['content-encoding'] = 'gzip';
}

/** zlib's errors (gzip, deflate: Z_DATA_ERROR, Z_BUF_ERROR, …; br: ERR__ERROR_FORMAT_…, ERR_BROTLI_…). */
function isDecodingError(error: { code?: unknown }): boolean {
  return typeof error.code === 'string' && /^(Z_|ERR_BROTLI|ERR__ERROR)/.test(error.code);
}

/**
 * body-parser's `verify`: the body's bytes (decompressed) must be UTF-8. isUtf8 is native and
 * allocates nothing; the offset is looked for only in a body that fails.
 */
function verifyUtf8(req: Request, _res: unknown, bytes: Buffer): void {
  if (isUtf8(bytes)) return;
  const of = req.headers['content-encoding'] === undefined ? '' : ' of the decompressed body';
  throw new Error(
    `The request body is not valid UTF-8: the bytes from offset ${invalidUtf8At(bytes)}${of} are not a UTF-8 character. Send JSON in UTF-8 (convert text from Latin-1 or Windows-1252 first), or write such characters as \\u escapes.`,
  );
}

/** body-parser's error as one of ours where it is the client's doing; others go on as they are. */
function bodyError(req: Request, error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const marked = error as { type?: unknown; code?: unknown };
  if (marked.type === 'encoding.unsupported') {
    return new UnsupportedMediaTypeError(
      `The Content-Encoding ${contentEncoding(req)} is not supported: send the body uncompressed, or compressed with gzip, deflate or br.`,
    );
  }
  // verifyUtf8's (body-parser gives it a 403 and the body: a new error keeps neither).
  if (marked.type === 'entity.verify.failed') return new BadRequestError((error as Error).message);
  if (marked.type === 'request.aborted') return new BadRequestError('The request body was not received in full: the client closed the connection.');
  if (marked.type === undefined && isDecodingError(marked)) {
    return new BadRequestError(`The request body is not valid ${contentEncoding(req)} data, as its Content-Encoding says: send it compressed that way, or uncompressed without the header.`);
  }
  return error;
}

const CHARSET = /(;\s*charset\s*=\s*)"?([^";\s]+)"?/i;
/** UTF-8 by its name, its common alias, and US-ASCII, a subset of it. */
const UTF8_NAMES = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * The 415 for a JSON body said to be in a charset other than UTF-8, or undefined; a name of UTF-8
 * is rewritten `utf-8` for body-parser, which takes only that name. body-parser refuses only
 * charsets outside utf-*, so a body said to be UTF-16 was decoded as UTF-16 and refused as
 * malformed JSON (400) where another charset is a 415.
 */
function charsetRefused(req: Request): UnsupportedMediaTypeError | undefined {
  const type = req.headers['content-type'] ?? '';
  const charset = CHARSET.exec(type)?.[2];
  if (charset === undefined || charset.toLowerCase() === 'utf-8') return undefined;
  if (UTF8_NAMES.has(charset.toLowerCase())) {
    req.headers['content-type'] = type.replace(CHARSET, '$1utf-8');
    return undefined;
  }
  return new UnsupportedMediaTypeError(`The request body's charset ${shown(charset)} is not supported: send it as UTF-8 (charset=utf-8) or leave the charset out.`);
}

export function jsonBody(): RequestHandler {
  // Not strict: any JSON value is JSON (a 400 says it is malformed); a body that is null, a number
  // or a string where the document wants an object is a 422 of the validator, which says so.
  const parse = express.json({ limit: BODY_LIMIT, strict: false, type: 'application/json', verify: verifyUtf8 });
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    // A body that cannot be read is answered after the rate limits (step 4), which count it and
    // give it their RateLimit-* headers like any answer of a limited operation: refuseUnreadBody.
    const refused = charsetRefused(req);
    if (refused) {
      req.bodyError = refused;
      return next();
    }
    readXGzipAsGzip(req);
    parse(req, res, (error?: unknown) => {
      if (error !== undefined) req.bodyError = bodyError(req, error);
      next();
    });
  };
}

/** After the rate limits: the answer to a body step 3 could not read (400, 413 or 415), if any. */
export function refuseUnreadBody(): RequestHandler {
  return (req, _res, next) => next(req.bodyError);
}
