/**
 * The request path's step 3 and what the validator makes of a body: malformed JSON, sizes, media
 * types and charsets, a body that is not an object, a body that is not there at all, text that is
 * not Unicode; and that a body that cannot be read still counts against the rate limit.
 */
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';

const INVALID = 'The given data was invalid.';

/**
 * A POST with `headers` and no body at all, as `curl -X POST` sends it: no Content-Length and no
 * chunks (supertest and fetch send Content-Length: 0), read back as status and JSON body.
 */
async function noBody(app: RequestListener, path: string, headers: Readonly<Record<string, string>>): Promise<{ status: number; body: { errors: Record<string, string[]> } }> {
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`POST ${path} HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n${lines.join('')}\r\n`);
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { errors: Record<string, string[]> } };
  } finally {
    server.close();
  }
}

describe('Request path: bodies', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const login = (type = 'application/json'): Test => api(h.app).post('/api/auth/token').set('Content-Type', type);

  it('When the JSON is malformed, Then it answers 400 with the contract body', async () => {
    await login().send('{"email":').expect(400, { message: 'The request body is not valid JSON.' });
  });

  it('When the body of a data operation cannot be read (400, 413, 415), Then the answer carries RateLimit-* and counts against the limit', async () => {
    const remaining = async (res: { headers: Record<string, string> }): Promise<number> => Number(res.headers['ratelimit-remaining']);
    const bad = (type: string, body: string) => world.as('operator').post('/api/articles').set('Content-Type', type).send(body);
    const first = await bad('application/json', '{x').expect(400);
    expect(first.headers).to.include.keys('ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset');
    const tooLarge = await bad('application/json', JSON.stringify({ description: 'x'.repeat(1024 * 1024) })).expect(413);
    expect(await remaining(tooLarge)).to.equal((await remaining(first)) - 1);
    const utf16 = await bad('application/json; charset=utf-16', '{}').expect(415);
    expect(await remaining(utf16)).to.equal((await remaining(first)) - 2);
  });

  for (const body of ['null', 'true', '123', '"just a string"']) {
    it(`When the body is valid JSON but not an object (${body}), Then it is a 422 saying so, not a 400 calling it malformed`, async () => {
      await login().send(body).expect(422, { message: INVALID, errors: { body: ['The body field must be an object.'] } });
    });
  }

  it('When an operation that takes no body is sent null, Then it is a 422 saying it takes none', async () => {
    const res = await world.as('operator').post('/api/sales-orders/999999/release').set('Content-Type', 'application/json').send('null').expect(422);
    expect(res.body.errors).to.deep.equal({ body: ['This operation takes no request body.'] });
  });

  it('When an operation that takes no body is sent thousands of fields and a malformed X-Company-Id, Then the 422 lists the header and the first fields, counting the rest', async () => {
    const body = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i]));
    const res = await world.as('operator', null).post('/api/sales-orders/999999/release').set('X-Company-Id', 'abc').send(body).expect(422);
    expect(res.body.message).to.equal('The given data was invalid: 3001 fields have problems, the first 100 are listed.');
    expect(Object.keys(res.body.errors)).to.have.length(100);
    expect(res.body.errors['X-Company-Id']).to.deep.equal(['The X-Company-Id header must be a positive integer of at most 2147483647.']);
    expect(res.body.errors.k0).to.deep.equal(['The k0 field is not allowed.']);
  });

  for (const [what, headers] of [
    ['Content-Type: application/json', { 'Content-Type': 'application/json' }],
    ['Content-Type: application/json and Content-Encoding: gzip', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }],
  ] as const) {
    it(`When a request names ${what} but sends no body at all, Then its required fields are named in a 422 (it was a 500)`, async () => {
      const res = await noBody(h.app, '/api/auth/token', headers);
      expect(res.status).to.equal(422);
      expect(Object.keys(res.body.errors)).to.deep.equal(['email', 'password']);
    });
  }

  it('When a string of the body holds half of a surrogate pair (a lone \\uD800 escape), Then it is a 422 on that field with the other problems', async () => {
    const res = await login().send('{"email":"not-an-email","password":"x\\ud800y","device_name":7}').expect(422);
    expect(res.body.errors).to.deep.equal({
      email: ['The email field must be a valid email address.'],
      device_name: ['The device_name field must be a string.'],
      password: ['The password field must be valid Unicode text: it holds half of a surrogate pair (a lone \\uD800-\\uDFFF escape).'],
    });
  });

  it('When text of the body holds NUL (a description, a barcode, a note of a line), Then it is a 422 on each, which SQLite would search only up to the NUL', async () => {
    const nul = 'The {field} field must not hold the NUL character (\\u0000).';
    const res = await world.as('operator').post('/api/articles').send({ article_code: unique('NUL-'), description: 'Widget\u0000 blue', um3pl: 'BUC', um3pl_barcode: '594\u0000B' }).expect(422);
    expect(res.body.errors).to.deep.equal({ description: [nul.replace('{field}', 'description')], um3pl_barcode: [nul.replace('{field}', 'um3pl_barcode')] });
    const tabs = await world.as('operator').post('/api/articles').send({ article_code: unique('TAB-'), description: 'Widget\tblue\nline two', um3pl: 'BUC' }).expect(201);
    expect(tabs.body.data.description).to.equal('Widget\tblue\nline two');
  });

  it('When objects or arrays nest thousands deep (a 12 KB body), Then it is a 422 on the field where they pass 32 levels, on a login, a write and GraphQL variables (it was a 500: the stack ran out)', async () => {
    const nested = (depth: number, inner: string): string => '['.repeat(depth) + inner + ']'.repeat(depth);
    const deep = await login().send(`{"email":"a@example.test","password":${nested(6000, '1')}}`).expect(422);
    expect(deep.body.errors).to.deep.equal({ password: ['The password field must be a string.'], [`password${'.0'.repeat(31)}`]: ['The password.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0 field must not nest objects and arrays more than 32 levels deep.'] });
    const write = await world.as('operator').post('/api/articles').set('Content-Type', 'application/json').send(`{"article_code":"DEEP","um3pl":"BUC","description":${nested(5000, '"x"')}}`).expect(422);
    expect(Object.keys(write.body.errors)).to.deep.equal(['description', `description${'.0'.repeat(31)}`]);
    const graphql = await world.as('viewer').post('/graphql').set('Content-Type', 'application/json').send(`{"query":"{ __typename }","variables":{"v":${nested(20000, '1')}}}`).expect(422);
    expect(graphql.body.errors[0].extensions.errors).to.have.keys(`variables.v${'.0'.repeat(30)}`);
    // 32 levels are read: the refusal is the schema's, not the depth's.
    const atTheLimit = await login().send(`{"email":"a@example.test","password":${nested(31, '1')}}`).expect(422);
    expect(atTheLimit.body.errors).to.deep.equal({ password: ['The password field must be a string.'] });
  });

  it('When a body has thousands of fields the schema does not take, Then the 422 lists the first 100 and counts the rest in its message (it was 4 MB without a token)', async () => {
    const body: Record<string, unknown> = { email: 'a@example.test', password: 'x' };
    for (let i = 0; i < 5000; i++) body[`extra${i}`] = i;
    const res = await login().send(body).expect(422);
    expect(res.body.message).to.equal('The given data was invalid: 5000 fields have problems, the first 100 are listed.');
    expect(Object.keys(res.body.errors)).to.have.length(100);
    expect(res.body.errors.extra0).to.deep.equal(['The extra0 field is not allowed.']);
    const few = await login().send({ email: 'a@example.test', password: 'x', extra: 1 }).expect(422);
    expect(few.body).to.deep.equal({ message: INVALID, errors: { extra: ['The extra field is not allowed.'] } });
  });

  it('When the JSON body is over 1 MiB, Then it answers 413 with the error body', async () => {
    const body = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(1024 * 1024) });
    await login().send(body).expect(413, { message: 'The request body is larger than 1 MiB.' });
  });

  it('When the JSON body is exactly 1 MiB, Then it is read and validated (422, not 413)', async () => {
    const head = '{"email":"a@b.co","password":"';
    const body = `${head}${'x'.repeat(1024 * 1024 - head.length - 2)}"}`;
    expect(Buffer.byteLength(body)).to.equal(1024 * 1024);
    const errors = { password: ['The password field must not be longer than 255 characters.'] };
    await login().send(body).expect(422, { message: INVALID, errors });
  });

  it('When the body is not UTF-8 (Latin-1 letters, no charset), Then it answers 400 naming the byte and nothing is written: two codes differing there were one article', async () => {
    const latin1 = (code: string): Buffer => Buffer.concat([Buffer.from(`{"article_code":"${code}-`), Buffer.from([0xd6]), Buffer.from('L","description":"Oil","um3pl":"BUC"}')]);
    const message = 'The request body is not valid UTF-8: the bytes from offset 21 are not a UTF-8 character. Send JSON in UTF-8 (convert text from Latin-1 or Windows-1252 first), or write such characters as \\u escapes.';
    // As the bytes are: superagent would send a Buffer as JSON of its own.
    const raw = (path: string, body: Buffer, encoding?: string): Test => {
      const request = world.as('operator').post(path).set('Content-Type', 'application/json').serialize((bytes: unknown) => bytes as string);
      return encoding ? request.set('Content-Encoding', encoding).send(gzipSync(body)) : request.send(body);
    };
    const post = (body: Buffer, encoding?: string): Test => raw('/api/articles', body, encoding);
    await post(latin1("LX1")).expect(400, { message });
    await post(latin1('LX1'), 'gzip').expect(400, { message: message.replace('offset 21', 'offset 21 of the decompressed body') });
    const bulk = Buffer.concat([Buffer.from('{"items":['), latin1('LX2'), Buffer.from(',{"article_code":"LX2-'), Buffer.from([0xdc]), Buffer.from('L","description":"Owl","um3pl":"BUC"}]}')]);
    await raw('/api/articles/bulk', bulk).expect(400);
    const found = await world.as('operator').get('/api/articles').query({ search: 'LX' }).expect(200);
    expect(found.body.data).to.deep.equal([]);
    const utf8 = await post(Buffer.from('{"article_code":"LX1-ÖL 😀","description":"Öl","um3pl":"BUC"}')).expect(201);
    expect(utf8.body.data.article_code).to.equal('LX1-ÖL 😀');
  });

  it('When the content type is text/plain, Then it answers 415 with a message', async () => {
    await login('text/plain').send('email=a@b.co').expect(415, { message: 'The request body must be application/json.' });
  });

  for (const [charset, named] of [['latin1', 'latin1'], ['utf-16', 'utf-16'], ['UTF-16LE', 'UTF-16LE'], ['"utf-32"', 'utf-32']]) {
    it(`When the JSON is declared in another charset (${charset}), Then it answers 415 saying which charset to send`, async () => {
      await login(`application/json; charset=${charset}`)
        .send('{"email":"a@b.co","password":"x"}')
        .expect(415, { message: `The request body's charset ${named} is not supported: send it as UTF-8 (charset=utf-8) or leave the charset out.` });
    });
  }

  it('When the JSON is declared UTF-8 (in any case, quoted or not, as utf8, or as its subset us-ascii), Then it is read', async () => {
    const body = '{"email":"a@b.co","password":"x"}';
    const read = (await login().send(body).expect(422)).body;
    for (const charset of ['utf-8', 'UTF-8', '"UTF-8"', 'utf8', 'UTF8', 'us-ascii', '"US-ASCII"']) {
      const res = await login(`application/json; charset=${charset}`).send(body);
      expect([res.status, res.body], charset).to.deep.equal([422, read]);
    }
  });
});
