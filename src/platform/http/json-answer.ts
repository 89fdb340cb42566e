/** Writing a JSON answer: the handlers' (dispatch.ts) and the errors' (error-handler.ts). */
import type { Response } from 'express';
import { COMPRESS_MIN_BYTES, compress, negotiateEncoding } from './compression.js';
import { encodedTag } from './entity-tag.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A JSON answer is written directly: its Content-Type is always the same, and express's res.send
 * would parse and re-format it, look for an ETag (off) and freshness (no validators are sent) on
 * every answer. Node leaves out the body of a HEAD answer itself. An answer over
 * COMPRESS_MIN_BYTES goes out in brotli or gzip when the client takes one (compressed off the
 * event loop, in zlib's threads); a smaller one pays one comparison. Other answers go through express.
 */
export function writeJson(res: Response, text: string): void {
  res.setHeader('Content-Type', JSON_TYPE);
  const compressible = text.length >= COMPRESS_MIN_BYTES;
  // An answer that another Accept-Encoding would get compressed varies by it, also when this one
  // goes out as it is: a cache must not hand this copy to a client that asked for gzip, or the reverse.
  if (compressible) res.vary('Accept-Encoding');
  const encoding = compressible ? negotiateEncoding(res.req.headers['accept-encoding']) : undefined;
  if (encoding === undefined) {
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
    return;
  }
  // A strong ETag names the bytes sent: compressed, they are other bytes (entity-tag.ts).
  const tag = res.getHeader('ETag');
  if (typeof tag === 'string' && tag.endsWith('"') && !tag.startsWith('W/')) res.setHeader('ETag', encodedTag(tag, encoding));
  compress(text, encoding).then(
    (body) => {
      res.setHeader('Content-Encoding', encoding);
      res.setHeader('Content-Length', body.length);
      res.end(body);
    },
    () => res.destroy(),
  );
}
