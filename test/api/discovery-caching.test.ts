/**
 * Compression and caching (src/platform/http/compression.ts, static-body.ts): JSON over 1 KiB in
 * brotli or gzip as the client prefers, small answers untouched; the document, the reference page
 * and GraphiQL with an ETag, `Cache-Control: no-cache`, 304 on If-None-Match (weak or strong, a list too), compressed once.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { api, unchecked } from '../helpers/api.js';
import { harness, type Harness } from '../helpers/harness.js';
import { negotiateEncoding } from '../../src/platform/http/compression.js';

/**
 * Keeps the body as bytes. supertest decodes brotli and gzip by Content-Encoding (a body that is
 * not what its header says fails the request), so the bytes are the decoded body; Content-Length
 * is what came over the wire.
 */
function bytes(res: Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

describe('GET /openapi.json and GET /docs and GET /graphql: ETag, 304 and compression', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  for (const [path, accept] of [['/openapi.json', 'application/json'], ['/docs', 'text/html'], ['/graphql', 'text/html']] as const) {
    it(`When ${path} is read, Then it has an ETag and Cache-Control: no-cache, and If-None-Match with it answers 304 without a body`, async () => {
      const first = await api(h.app).get(path).set('Accept', accept).set('Accept-Encoding', 'identity').expect(200);
      expect(first.headers.etag).to.match(/^"[A-Za-z0-9_-]{20,}"$/);
      expect(first.headers['cache-control']).to.equal('no-cache');
      expect(first.headers['content-encoding']).to.equal(undefined);
      const again = await api(h.app).get(path).set('Accept', accept).set('Accept-Encoding', 'identity').set('If-None-Match', first.headers.etag!).expect(304);
      expect(again.text ?? '').to.equal('');
      expect(again.headers.etag).to.equal(first.headers.etag);
      await api(h.app).get(path).set('Accept', accept).set('If-None-Match', '"something-else"').expect(200);
      // If-None-Match compares weakly (RFC 9110, 13.1.2) and takes a list.
      await api(h.app).get(path).set('Accept', accept).set('Accept-Encoding', 'identity').set('If-None-Match', `W/${first.headers.etag!}`).expect(304);
      await api(h.app).get(path).set('Accept', accept).set('Accept-Encoding', 'identity').set('If-None-Match', `"other", ${first.headers.etag!}`).expect(304);
    });

    it(`When ${path} is asked for with brotli and with gzip, Then each answers in that encoding and decodes to the same body`, async () => {
      // As bytes (outside the contract check, which reads the parsed body: each is checked above).
      const plain = await unchecked(h.app).get(path).set('Accept', accept).set('Accept-Encoding', 'identity').buffer(true).parse(bytes).expect(200);
      const etags = new Set([plain.headers.etag]);
      for (const encoding of ['br', 'gzip']) {
        const res = await unchecked(h.app).get(path).set('Accept', accept).set('Accept-Encoding', encoding).buffer(true).parse(bytes).expect(200);
        expect(res.headers['content-encoding']).to.equal(encoding);
        // A strong ETag names the bytes sent: each encoding has its own; any of them is the content a client has.
        expect(res.headers.etag).to.equal(`${plain.headers.etag!.slice(0, -1)}-${encoding}"`);
        etags.add(res.headers.etag);
        await unchecked(h.app).get(path).set('Accept', accept).set('Accept-Encoding', 'identity').set('If-None-Match', res.headers.etag!).expect(304);
        expect(res.headers.vary).to.include('Accept-Encoding');
        expect(Number(res.headers['content-length'])).to.be.below((plain.body as Buffer).length / 2);
        expect((res.body as Buffer).equals(plain.body as Buffer)).to.equal(true);
      }
      expect(etags.size).to.equal(3);
    });
  }
});

describe('GET /api and GET /livez: JSON compression', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  it('When a JSON answer is over 1 KiB and the client prefers brotli, Then it comes in brotli, shorter, and decodes to the same JSON', async () => {
    const plain = await api(h.app).get('/api').set('Accept-Encoding', 'identity').expect(200);
    expect(Buffer.byteLength(plain.text)).to.be.above(1024);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    // The copy sent as it is varies by Accept-Encoding too: a cache must not give it to a client that takes gzip.
    expect(plain.headers.vary).to.equal('Accept-Encoding');
    for (const [accept, encoding] of [['gzip;q=0.5, br', 'br'], ['gzip, deflate', 'gzip']]) {
      const res = await api(h.app).get('/api').set('Accept-Encoding', accept!).expect(200);
      expect(res.headers['content-encoding']).to.equal(encoding);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.headers.vary).to.equal('Accept-Encoding');
      expect(Number(res.headers['content-length'])).to.be.below(Buffer.byteLength(plain.text) / 2);
      expect(res.body).to.deep.equal(plain.body);
    }
  });

  it('When a JSON answer is small, Then it goes out as it is, whatever the client accepts', async () => {
    const res = await api(h.app).get('/livez').set('Accept-Encoding', 'br, gzip').expect(200);
    expect(res.headers['content-encoding']).to.equal(undefined);
    expect(res.headers.vary).to.equal(undefined);
    expect(res.headers['content-length']).to.equal(String(Buffer.byteLength(res.text)));
  });

  it('When Accept-Encoding weighs the encodings, Then the preferred one that is not refused wins', () => {
    expect(negotiateEncoding(undefined)).to.equal(undefined);
    expect(negotiateEncoding('identity')).to.equal(undefined);
    expect(negotiateEncoding('gzip, deflate')).to.equal('gzip');
    expect(negotiateEncoding('gzip, deflate, br')).to.equal('br');
    expect(negotiateEncoding('br;q=0.2, gzip;q=0.8')).to.equal('gzip');
    expect(negotiateEncoding('br;q=0, *')).to.equal('gzip');
    expect(negotiateEncoding('*;q=0')).to.equal(undefined);
  });
});
