/**
 * A body that is the same for every request that gets it (the reference at /docs, GraphiQL's page,
 * the served /openapi.json): made once, with its ETag and its compressed forms made once too, and
 * answered 304 to a client that already has it (If-None-Match). `Cache-Control: no-cache` lets a
 * browser keep it and ask again each time, so a new version is seen at once after a deploy.
 */
import { encodedTag, namesTag, strongTag } from './entity-tag.js';
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
    this.etag = strongTag(this.content);
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

/**
 * The ETag of the representation sent: a strong validator names its bytes (RFC 9110, 8.8.3), so
 * the gzip and br forms each have their own (`"<tag>-gzip"`), as the uncompressed one has its own.
 */
function etagOf(body: StaticBody, encoding: Encoding | undefined): string {
  return encoding ? encodedTag(body.etag, encoding) : body.etag;
}

/**
 * Whether If-None-Match names the ETag of this content in any of its encodings (or `*`): a client
 * that has it compressed one way has the same content; weak validators compare as strong ones here.
 */
function notModified(req: Request, body: StaticBody): boolean {
  return namesTag(req.headers['if-none-match'], body.etag, { weak: true });
}

/** Writes `body` with its validators: 304 when the client has it, else in the encoding it prefers. */
export async function writeStatic(req: Request, res: Response, status: number, body: StaticBody): Promise<void> {
  const encoding = body.content.length >= COMPRESS_MIN_BYTES ? negotiateEncoding(req.headers['accept-encoding']) : undefined;
  res.setHeader('ETag', etagOf(body, encoding));
  res.setHeader('Cache-Control', body.cacheControl);
  res.vary('Accept-Encoding');
  if (status === 200 && notModified(req, body)) {
    res.status(304).end();
    return;
  }
  const content = encoding ? await body.encoded(encoding) : body.content;
  res.status(status);
  res.setHeader('Content-Type', body.contentType);
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', content.length);
  res.end(content);
}
