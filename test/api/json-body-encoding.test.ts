/**
 * Compressed request bodies (src/platform/http/json-body.ts): gzip (also as x-gzip), deflate and br
 * are read; bytes that are not what their Content-Encoding says are a 400 and an encoding we do not
 * take a 415, on every operation that reads a body, before any token is looked at; never a 500 or
 * an error line.
 */
import { expect } from 'chai';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { pino } from 'pino';
import type { Test } from 'supertest';
import { api } from '../helpers/api.js';
import { createUser, TEST_PASSWORD } from '../helpers/factories.js';
import { buildApp, type Harness } from '../helpers/harness.js';
import { concretePath, errorMessage, operations } from '../helpers/operations.js';

const BODY = Buffer.from(JSON.stringify({ email: 'nobody@example.test', password: 'not-compressed' }));
const withBody = operations.filter((op) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method));
/** The bytes as they are (superagent would JSON-encode a Buffer sent as application/json). */
const compressed = (test: Test, encoding: string, bytes: Buffer): Test =>
  test.set('Content-Type', 'application/json').set('Content-Encoding', encoding).serialize((b: unknown) => b as string).send(bytes);
const mismatch = (encoding: string): string =>
  `The request body is not valid ${encoding} data, as its Content-Encoding says: send it compressed that way, or uncompressed without the header.`;

describe('Request bodies with a Content-Encoding', () => {
  let h: Harness;
  const lines: Array<{ level: number; msg: string }> = [];

  before(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    h = await buildApp({ deps: { logger } });
  });

  beforeEach(() => {
    lines.length = 0;
  });

  afterEach(() => {
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg), 'error lines').to.deep.equal([]);
  });

  for (const op of withBody) {
    it(`When ${op.method} ${op.path} gets a body whose bytes are not gzip under Content-Encoding: gzip, without a token, Then it answers 400 saying so`, async () => {
      const res = await compressed(api(h.app).request(op.method, concretePath(op)), 'gzip', BODY);
      expect(res.status, res.text).to.equal(400);
      expect(errorMessage(op, res.body)).to.equal(mismatch('gzip'));
    });
  }

  for (const encoding of ['deflate', 'br']) {
    it(`When a login's body is not ${encoding} under Content-Encoding: ${encoding}, Then it answers 400 saying so`, async () => {
      const res = await compressed(api(h.app).post('/api/auth/token'), encoding, BODY).expect(400);
      expect(res.body).to.deep.equal({ message: mismatch(encoding) });
    });
  }

  it('When a gzip body is cut short, Then it answers 400 saying it is not valid gzip', async () => {
    const cut = gzipSync(BODY).subarray(0, 12);
    const res = await compressed(api(h.app).post('/api/auth/token'), 'gzip', cut).expect(400);
    expect(res.body).to.deep.equal({ message: mismatch('gzip') });
  });

  it('When the Content-Encoding is one we do not take, Then it answers 415 naming it', async () => {
    const res = await compressed(api(h.app).post('/api/auth/token'), 'compress', BODY).expect(415);
    expect(res.body).to.deep.equal({ message: 'The Content-Encoding compress is not supported: send the body uncompressed, or compressed with gzip, deflate or br.' });
  });

  for (const [encoding, compress] of [['gzip', gzipSync], ['x-gzip', gzipSync], ['X-GZIP', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
    it(`When the body really is ${encoding}, Then it is read: the login succeeds`, async () => {
      const user = await createUser(h.db);
      const body = compress(Buffer.from(JSON.stringify({ email: user.email, password: TEST_PASSWORD })));
      const res = await compressed(api(h.app).post('/api/auth/token'), encoding, body).expect(200);
      expect(res.body.user.email).to.equal(user.email);
    });
  }
});
