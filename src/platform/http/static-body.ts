/**
 * A body that is the same for every request that gets it (the reference at /docs, GraphiQL's page,
 * the served /openapi.json): made once, with its ETag and its compressed forms made once too, and
 * answered 304 to a client that already has it (If-None-Match). `Cache-Control: no-cache` lets a
 * browser keep it and ask again each time, so a new version is seen at once after a deploy.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { COMPRESS_MIN_BYTES, compress, negotiateEncoding, type Encoding } from './compression.js';

export class StaticBody {
  readonly content: Buffer;
  readonly etag: string;
  readonly #encoded = new Map<Encoding, Promise<Buffer>>();

  constructor(
    content: string | Buffer,
    readonly contentType: string,
    readonly cacheControl = 'no-cache',
  ) {
    this.content = typeof content === 'string' ? Buffer.from(content) : content;
    this.etag = `"${createHash('sha256').update(this.content).digest('base64url').slice(0, 27)}"`;
  }

  /** The content in `encoding`, compressed the first time it is asked for. */
  encoded(encoding: Encoding): Promise<Buffer> {
    let encoded = this.#encoded.get(encoding);
    if (!encoded) {
      encoded = compress(this.content, encoding, 'once');
      this.#encoded.set(encoding, encoded);
      encoded.catch(() => this.#encoded.delete(encoding));
    }
    return encoded;
  }
}

/** Whether If-None-Match names this ETag (or `*`); weak validators compare as strong ones here. */
function notModified(req: Request, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value === etag || value === `W/${etag}`;
  });
}

/** Writes `body` with its validators: 304 when the client has it, else in the encoding it prefers. */
export async function writeStatic(req: Request, res: Response, status: number, body: StaticBody): Promise<void> {
  res.setHeader('ETag', body.etag);
  res.setHeader('Cache-Control', body.cacheControl);
  res.setHeader('Vary', 'Accept-Encoding');
  if (status === 200 && notModified(req, body.etag)) {
    res.status(304).end();
    return;
  }
  const encoding = body.content.length >= COMPRESS_MIN_BYTES ? negotiateEncoding(req.headers['accept-encoding']) : undefined;
  const content = encoding ? await body.encoded(encoding) : body.content;
  res.status(status);
  res.setHeader('Content-Type', body.contentType);
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', content.length);
  res.end(content);
}
