/** Idempotency-Key on POST /api/articles (the x-idempotent operation available now). */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, unique, type Actor, type World } from '../helpers/factories.js';
import { nowDb } from '../../src/kernel/time.js';
import { pruneIdempotencyKeys, requestHash } from '../../src/platform/idempotency/idempotency.js';
import { withInsertTrigger } from '../fixtures/faults.js';
import { countEvents, eventsOf } from '../fixtures/probes.js';

const INVALID = 'The given data was invalid.';
const MISMATCH = { message: INVALID, errors: { 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] } };
const CODE_TAKEN = 'The article_code has already been taken for this client.';
const DAY_MS = 24 * 60 * 60 * 1000;

interface Body {
  article_code: string;
  description: string;
  um3pl: string;
}

describe('Idempotency-Key (POST /api/articles)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const newBody = (): Body => ({ article_code: unique('IDEM-'), description: 'Idempotent jar', um3pl: 'BUC' });

  const post = (key: string | undefined, body: object, actor: Actor = 'operator', company?: number) => {
    const test = world.as(actor, company ?? world.client.id).post('/api/articles');
    if (key !== undefined) test.set('Idempotency-Key', key);
    return test.send(body);
  };

  const count = async (table: string, where: Record<string, unknown>): Promise<number> =>
    Number((await h.db(table).where(where).count({ n: '*' }).first())!.n);

  const keyRows = (key: string) => h.db('idempotency_keys').where('idempotency_key', key).orderBy('id');

  const insertKeyRow = (companyId: number, key: string, body: object, createdAtMs: number) =>
    h.db('idempotency_keys').insert({
      company_id: companyId,
      idempotency_key: key,
      request_hash: requestHash('createArticle', '/api/articles', body),
      state: 'processing',
      created_at: nowDb(() => createdAtMs),
      expires_at: nowDb(() => createdAtMs + DAY_MS),
    });

  const replayed = (res: Response): string | undefined => res.headers['idempotent-replayed'];

  describe('replay', () => {
    it('When the same key and body are sent again, Then the stored 201 and body come back with Idempotent-Replayed: true and nothing is created', async () => {
      const key = unique('key-');
      const body = newBody();
      const first = await post(key, body).expect(201);
      expect(replayed(first)).to.equal(undefined);
      expect(first.body.data).to.include({ article_code: body.article_code, description: body.description, um3pl: 'BUC', client_3pl_id: world.client.id });
      const articles = await count('articles', { company_id: world.client.id });
      const events = await countEvents(h.db, { companyId: world.client.id });

      const again = await post(key, body).expect(201);
      expect(replayed(again)).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect(await count('articles', { company_id: world.client.id })).to.equal(articles);
      expect(await countEvents(h.db, { companyId: world.client.id })).to.equal(events);
      expect(await count('articles', { article_code: body.article_code })).to.equal(1);
      const rows = await keyRows(key);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ company_id: world.client.id, state: 'completed', response_status: 201 });
      expect(JSON.parse(rows[0].response_body)).to.deep.equal(first.body);
    });

    it('When the same body is sent with its keys in another order, Then it counts as the same request and is replayed', async () => {
      const key = unique('key-');
      const body = newBody();
      const first = await post(key, body).expect(201);
      const reordered = { um3pl: body.um3pl, description: body.description, article_code: body.article_code };
      const again = await post(key, reordered).expect(201);
      expect(replayed(again)).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect(await count('articles', { article_code: body.article_code })).to.equal(1);
    });

    it('When the same key comes with another body, Then it answers 422 on Idempotency-Key and creates nothing', async () => {
      const key = unique('key-');
      const body = newBody();
      await post(key, body).expect(201);
      const other = { ...body, article_code: unique('IDEM-') };
      await post(key, other).expect(422, MISMATCH);
      await post(key, { ...body, description: 'Another description' }).expect(422, MISMATCH);
      expect(await count('articles', { article_code: other.article_code })).to.equal(0);
    });

    it('When no key is sent, Then each request is processed on its own', async () => {
      const body = newBody();
      await post(undefined, body).expect(201);
      const res = await post(undefined, body).expect(422);
      expect(res.body).to.deep.equal({ message: CODE_TAKEN, errors: { article_code: [CODE_TAKEN] } });
    });
  });

  describe('in flight', () => {
    it('When a request with the key is still processing, Then a second one answers 409 with a message and creates nothing', async () => {
      const key = unique('key-');
      const body = newBody();
      await insertKeyRow(world.client.id, key, body, Date.now());
      const res = await post(key, body).expect(409);
      expect(res.body).to.have.all.keys('message');
      expect(res.body.message).to.be.a('string').and.match(/Idempotency-Key is still being processed/);
      expect(res.headers['retry-after'], 'Retry-After').to.equal('1');
      expect(replayed(res)).to.equal(undefined);
      expect(await count('articles', { article_code: body.article_code })).to.equal(0);
      expect(await keyRows(key)).to.have.length(1).and.nested.property('[0].state', 'processing');
    });

    it('When the processing claim is 20 s old (a long request, or one whose process died), Then the 409 says so and backs off as long (Retry-After 20), and no later than it can be taken over (50 s old: 10)', async () => {
      const key = unique('key-');
      const body = newBody();
      await insertKeyRow(world.client.id, key, body, Date.now() - 20_000);
      const res = await post(key, body).expect(409);
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).to.be.within(20, 21);
      expect(res.body).to.deep.equal({
        message: `A request with this Idempotency-Key has been processed for 20 s: retry in ${retryAfter} s (if its process died, a retry takes it over once it is 60 s old).`,
      });
      expect(await count('articles', { article_code: body.article_code })).to.equal(0);
      const older = unique('key-');
      await insertKeyRow(world.client.id, older, body, Date.now() - 50_000);
      expect(Number((await post(older, body).expect(409)).headers['retry-after'])).to.be.within(9, 10);
    });

    it('When the processing claim is older than 60 s, Then it is taken over and the request goes through', async () => {
      const key = unique('key-');
      const body = newBody();
      await insertKeyRow(world.client.id, key, body, Date.now() - 61_000);
      const res = await post(key, body).expect(201);
      expect(replayed(res)).to.equal(undefined);
      expect(res.body.data).to.include({ article_code: body.article_code, client_3pl_id: world.client.id });
      const rows = await keyRows(key);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ state: 'completed', response_status: 201 });
      const again = await post(key, body).expect(201);
      expect(replayed(again)).to.equal('true');
      expect(again.body).to.deep.equal(res.body);
    });
    it('When another request takes the claim over while this one works, Then this one answers 409, keeps none of its work and gives the key back', async () => {
      const key = unique('key-');
      const body = newBody();
      // The takeover, as another request whose own claim found this one abandoned would write it,
      // lands while this request's work runs: here, on the insert of its article.
      const takeover = `UPDATE idempotency_keys SET created_at = '2001-01-01 00:00:00.000000' WHERE idempotency_key = '${key}'`;
      const events = await countEvents(h.db, { companyId: world.client.id });
      const res = await withInsertTrigger(h.db, { table: 'articles', timing: 'AFTER', action: takeover }, () => post(key, body).expect(409));
      expect(res.body).to.have.all.keys('message');
      expect(res.body.message).to.match(/took it over while this one was processed; this one changed nothing/);
      expect(await count('articles', { article_code: body.article_code })).to.equal(0);
      expect(await countEvents(h.db, { companyId: world.client.id })).to.equal(events);
      // The takeover rolled back with the work: the claim was still this request's, and it gave it back.
      expect(await keyRows(key)).to.have.length(0);
      const retry = await post(key, body).expect(201);
      expect(replayed(retry)).to.equal(undefined);
      expect(await count('articles', { article_code: body.article_code })).to.equal(1);
      expect(await keyRows(key)).to.have.length(1).and.nested.property('[0].state', 'completed');
    });
  });

  describe('scope and format', () => {
    it('When the same key is used for another company, Then a second article is created there, not replayed', async () => {
      const key = unique('key-');
      const body = newBody();
      const first = await post(key, body).expect(201);
      const other = await post(key, body, 'providerAdmin', world.otherClient.id).expect(201);
      expect(replayed(other)).to.equal(undefined);
      expect(other.body.data).to.include({ article_code: body.article_code, client_3pl_id: world.otherClient.id });
      expect(other.body.data.id).to.not.equal(first.body.data.id);
      expect(await count('articles', { article_code: body.article_code })).to.equal(2);
      expect((await keyRows(key)).map((r) => Number(r.company_id))).to.have.members([world.client.id, world.otherClient.id]);
    });

    it('When keys differ only in letter case, Then they are different keys (bytes compared on both engines)', async () => {
      const key = unique('Case-Key-');
      const [a, b] = [newBody(), newBody()];
      await post(key, a).expect(201);
      const res = await post(key.toLowerCase(), b).expect(201);
      expect(replayed(res)).to.equal(undefined);
      expect(res.body.data).to.include({ article_code: b.article_code });
    });

    it('When the key is longer than 255 characters, Then it answers 422 on Idempotency-Key and creates nothing', async () => {
      const body = newBody();
      const res = await post('k'.repeat(256), body).expect(422);
      expect(res.body).to.deep.equal({
        message: INVALID,
        errors: { 'Idempotency-Key': ['The Idempotency-Key header must not be longer than 255 characters.'] },
      });
      expect(await count('articles', { article_code: body.article_code })).to.equal(0);
      expect(await keyRows('k'.repeat(256))).to.have.length(0);
    });

    it('When the key holds characters beyond printable ASCII (été sent as UTF-8), Then it answers 422 on Idempotency-Key saying so and creates nothing', async () => {
      const body = newBody();
      // HTTP carries a header's bytes; the server reads each byte as one character.
      const utf8 = Buffer.from(`été-${unique('')}`, 'utf8').toString('latin1');
      const res = await post(utf8, body).expect(422);
      expect(res.body).to.deep.equal({
        message: INVALID,
        errors: { 'Idempotency-Key': ['The Idempotency-Key header must be printable ASCII characters (letters, digits, punctuation, spaces; no accented letters).'] },
      });
      expect(await count('articles', { article_code: body.article_code })).to.equal(0);
    });

    it('When the key is exactly 255 characters, Then it is accepted and replayed', async () => {
      const key = unique('k').padEnd(255, 'x');
      const body = newBody();
      const first = await post(key, body).expect(201);
      const again = await post(key, body).expect(201);
      expect(replayed(again)).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
    });

    it('When the key is empty, Then it answers 422 on Idempotency-Key (the document says minLength 1)', async () => {
      const body = newBody();
      const res = await post('', body).expect(422);
      expect(res.body).to.deep.equal({ message: INVALID, errors: { 'Idempotency-Key': ['The Idempotency-Key header must not be empty.'] } });
      expect(await count('articles', { article_code: body.article_code })).to.equal(0);
      expect(await keyRows('')).to.have.length(0);
    });
  });

  describe('failures store nothing', () => {
    it('When the schema rejects the body, Then no key is stored and the corrected request with the key is processed', async () => {
      const key = unique('key-');
      const body = newBody();
      const res = await post(key, { article_code: body.article_code, um3pl: 'BUC' }).expect(422);
      expect(res.body).to.deep.equal({ message: INVALID, errors: { description: ['The description field is required.'] } });
      expect(await keyRows(key)).to.have.length(0);
      const fixed = await post(key, body).expect(201);
      expect(replayed(fixed)).to.equal(undefined);
      expect(fixed.body.data).to.include({ article_code: body.article_code, description: body.description });
    });

    it('When the handler fails on a business rule (duplicate article_code), Then the key is released and can be used again', async () => {
      const key = unique('key-');
      const duplicate = { article_code: world.articles.client.code, description: 'Duplicate', um3pl: 'BUC' };
      const res = await post(key, duplicate).expect(422);
      expect(res.body).to.deep.equal({ message: CODE_TAKEN, errors: { article_code: [CODE_TAKEN] } });
      expect(await keyRows(key)).to.have.length(0);
      const body = newBody();
      const next = await post(key, body).expect(201);
      expect(replayed(next)).to.equal(undefined);
      expect(next.body.data).to.include({ article_code: body.article_code });
    });

    it('When the key has expired, Then it is forgotten and the key is processed anew', async () => {
      const key = unique('key-');
      const body = newBody();
      await post(key, body).expect(201);
      await keyRows(key).update({ expires_at: nowDb(() => Date.now() - 1000) });
      // Processed again, not replayed: the article exists, so the handler refuses it.
      const again = await post(key, body).expect(422);
      expect(again.body.errors).to.deep.equal({ article_code: [CODE_TAKEN] });
      const other = newBody();
      const res = await post(key, other).expect(201);
      expect(replayed(res)).to.equal(undefined);
      expect(res.body.data).to.include({ article_code: other.article_code });
      const rows = await keyRows(key);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ state: 'completed', request_hash: requestHash('createArticle', '/api/articles', other) });
      expect(String(rows[0].expires_at) > nowDb()).to.equal(true);
    });
  });

  describe('concurrency', () => {
    it('When 20 requests with one key and one body arrive at once, Then exactly one article and one event are created', async () => {
      const key = unique('key-');
      const body = newBody();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => post(key, body).then((res) => ({ status: res.status, replay: replayed(res), body: res.body }))),
      );
      for (const r of results) expect(r.status, JSON.stringify(r.body)).to.be.oneOf([201, 409]);
      const originals = results.filter((r) => r.status === 201 && r.replay === undefined);
      expect(originals, 'one original 201').to.have.length(1);
      for (const r of results.filter((x) => x.status === 201)) expect(r.body).to.deep.equal(originals[0]!.body);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body).to.have.all.keys('message');
      expect(await count('articles', { article_code: body.article_code })).to.equal(1);
      const events = await eventsOf(h.db, world.client.id, 'article.created');
      expect(events.filter((e) => e.article_code === body.article_code)).to.have.length(1);
      expect(await keyRows(key)).to.have.length(1).and.nested.property('[0].state', 'completed');
    });
  });

  describe('pruneIdempotencyKeys', () => {
    it('When the job runs, Then expired keys are deleted and live ones kept', async () => {
      const [expired, live] = [unique('old-'), unique('live-')];
      await insertKeyRow(world.client.id, expired, {}, Date.now() - DAY_MS - 1000);
      await insertKeyRow(world.client.id, live, {}, Date.now());
      await pruneIdempotencyKeys.run(h.db);
      expect(await keyRows(expired)).to.have.length(0);
      expect(await keyRows(live)).to.have.length(1);
      // More than one batch (1000) of expired keys goes too.
      const old = nowDb(() => Date.now() - DAY_MS - 1000);
      const rows = Array.from({ length: 1005 }, (_, i) => ({
        company_id: world.otherClient.id,
        idempotency_key: `${expired}-${i}`,
        request_hash: 'x'.repeat(64),
        state: 'completed',
        created_at: old,
        expires_at: old,
      }));
      await h.db.batchInsert('idempotency_keys', rows, 250);
      await pruneIdempotencyKeys.run(h.db);
      expect(await h.db('idempotency_keys').where('idempotency_key', 'like', `${expired}-%`).select('id')).to.deep.equal([]);
      const left = await h.db('idempotency_keys').where('expires_at', '<', nowDb()).count({ n: '*' }).first();
      expect(Number(left!.n)).to.equal(0);
    });
  });

  describe('claims racing a release', () => {
    /**
     * Makes the database answer the next `times` claims of `key` with a deadlock, as MariaDB does to
     * one of several claims of a key whose holder is releasing it (its work failed).
     */
    async function withDeadlockedClaims<T>(key: string, times: number, work: () => Promise<T>): Promise<T> {
      const client = h.db.client as unknown as { _query(connection: unknown, obj: { sql: string; bindings?: unknown[] }): Promise<unknown> };
      const query = client._query;
      let left = times;
      client._query = function (connection, obj) {
        if (left > 0 && /^insert into [`"]idempotency_keys[`"]/i.test(obj.sql) && obj.bindings?.includes(key)) {
          left--;
          return Promise.reject(Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 }));
        }
        return query.call(this, connection, obj);
      };
      try {
        return await work();
      } finally {
        client._query = query;
      }
    }

    it('When the claim of a key deadlocks, Then it claims again and the request is processed once (not a 503); when it deadlocks every time, Then 409 with Retry-After', async () => {
      const key = unique('key-');
      const body = newBody();
      const res = await withDeadlockedClaims(key, 2, () => post(key, body));
      expect(res.status, res.text).to.equal(201);
      expect(await count('articles', { article_code: body.article_code })).to.equal(1);
      expect(replayed(await post(key, body).expect(201))).to.equal('true');

      const busy = unique('key-');
      const refused = await withDeadlockedClaims(busy, 10, () => post(busy, newBody()));
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.headers['retry-after']).to.equal('1');
    });
  });
});
