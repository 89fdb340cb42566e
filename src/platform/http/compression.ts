/**
 * Response compression with node:zlib: brotli or gzip, whichever the client prefers by its
 * Accept-Encoding (brotli on a tie). A JSON answer is compressed when it is over COMPRESS_MIN_BYTES
 * (a smaller one costs one length comparison, nothing more); a static body (static-body.ts) is
 * compressed once per encoding and kept. The `compression` middleware is not used: it wraps every
 * response's write and end (small answers too), streams with chunked encoding, and would compress
 * the 3.7 MB reference page again on every request.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The encoding to answer in, from Accept-Encoding (`br;q=1, gzip;q=0.8, *;q=0`), or undefined for none. */
export function negotiateEncoding(header: string | undefined): Encoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weightOf = (encoding: Encoding): number => weights.get(encoding) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gz = weightOf('gzip');
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? 'br' : 'gzip';
}

/**
 * `quality` trades time for size: 4 for answers made per request (about as fast as gzip, smaller),
 * 9 for static bodies compressed once.
 */
export function compress(content: Buffer | string, encoding: Encoding, quality: 'fast' | 'once' = 'fast'): Promise<Buffer> {
  if (encoding === 'gzip') return gzip(content, { level: quality === 'fast' ? 6 : 9 });
  return brotli(content, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality === 'fast' ? 4 : 9,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: typeof content === 'string' ? Buffer.byteLength(content) : content.length,
    },
  });
}
