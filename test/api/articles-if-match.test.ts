/**
 * Optimistic concurrency on articles: GET /api/articles/{id} and every update answer the article's
 * ETag; PUT /api/articles/{id} and PATCH /api/articles/by-code/{code} with If-Match change it only
 * while it is still that version, else a 412 that names the current ETag and changes nothing. GraphQL's
 * Article.etag is the same tag, for a client that reads through GraphQL and writes through REST.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { makeArticle, type TestArticle } from '../fixtures/articles.js';
import { eventsOf } from '../fixtures/probes.js';

const TAG = /^"[A-Za-z0-9_-]{27}"$/;

describe('Articles: ETag and If-Match', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const read = async (article: TestArticle) => {
    const res = await world.as('viewer').get(`/api/articles/${article.id}`).expect(200);
    return { etag: res.headers.etag as string, data: res.body.data as Record<string, unknown> };
  };
  const put = (article: TestArticle, body: Record<string, unknown>, ifMatch?: string) => {
    const req = world.as('operator').put(`/api/articles/${article.id}`);
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body);
  };
  const patch = (article: TestArticle, body: Record<string, unknown>, ifMatch?: string) => {
    const req = world.as('operator').patch(`/api/articles/by-code/${encodeURIComponent(article.code)}`);
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body);
  };
  const updates = async (article: TestArticle) => (await eventsOf(h.db, world.client.id, 'article.updated', article.id)).length;
  const changed = (article: TestArticle, etag: string) =>
    `Article ${article.id} has changed since the version you sent in If-Match (it is now ${etag}): read it again, apply your change to it and send its ETag.`;

  it('When an article is read twice, Then both answers carry the same strong ETag; an update answers the new one, which the next read carries', async () => {
    const article = await makeArticle(world);
    const first = await read(article);
    expect(first.etag).to.match(TAG);
    expect((await read(article)).etag).to.equal(first.etag);
    const res = await put(article, { name: 'Renamed' }, first.etag).expect(200);
    expect(res.headers.etag).to.match(TAG).and.not.equal(first.etag);
    expect((await read(article)).etag).to.equal(res.headers.etag);
  });

  it('When an article is read through GraphQL, Then its etag is the ETag REST answers, and a REST update takes it as If-Match', async () => {
    const article = await makeArticle(world);
    const query = (id: number) =>
      world.as('viewer').post('/graphql').send({ query: 'query($id: Int!) { article(id: $id) { etag } articles(limit: 100) { id etag } }', variables: { id } }).expect(200);
    const first = (await query(article.id)).body.data;
    const rest = (await read(article)).etag;
    expect(first.article.etag).to.equal(rest);
    expect(first.articles.find((a: { id: number }) => a.id === article.id).etag).to.equal(rest);
    const res = await patch(article, { description: 'Changed through REST' }, first.article.etag).expect(200);
    expect((await query(article.id)).body.data.article.etag).to.equal(res.headers.etag).and.not.equal(rest);
    await put(article, { description: 'Stale' }, first.article.etag).expect(412);
  });

  it('When If-Match names a version another write has replaced, Then PUT and PATCH answer 412 with the current ETag, and nothing changes', async () => {
    const article = await makeArticle(world);
    const stale = (await read(article)).etag;
    await patch(article, { description: 'Changed by the other writer' }).expect(200);
    const now = await read(article);
    const eventsBefore = await updates(article);
    for (const res of [await put(article, { description: 'Mine' }, stale), await patch(article, { description: 'Mine' }, stale)]) {
      expect(res.status, JSON.stringify(res.body)).to.equal(412);
      expect(res.body).to.deep.equal({ message: changed(article, now.etag) });
      expect(res.headers.etag).to.equal(now.etag);
    }
    expect(await read(article)).to.deep.equal(now);
    expect(await updates(article)).to.equal(eventsBefore);
    // Read again, reapplied with the current tag: it is made.
    expect((await put(article, { description: 'Mine' }, now.etag).expect(200)).body.data.description).to.equal('Mine');
  });

  it('When If-Match is *, a list holding the current tag, a weak tag, or a stale tag on a change that changes nothing, Then only * and the list pass', async () => {
    const article = await makeArticle(world);
    const { etag, data } = await read(article);
    await put(article, { name: 'Any version' }, '*').expect(200);
    const current = (await read(article)).etag;
    await patch(article, { name: 'Listed' }, `"not-this-one", ${current}`).expect(200);
    const after = (await read(article)).etag;
    expect((await patch(article, { name: 'Weak' }, `W/${after}`).expect(412)).headers.etag).to.equal(after);
    // The precondition is judged before the change, even one that would change nothing.
    await put(article, { description: data.description as string }, etag).expect(412);
    await put(article, { name: 'Listed' }, after).expect(200);
  });

  it('When two writers send the same If-Match at once, Then exactly one update is made and the other is a 412', async () => {
    const article = await makeArticle(world);
    const { etag } = await read(article);
    const results = await Promise.all([put(article, { name: 'Writer A' }, etag), patch(article, { name: 'Writer B' }, etag)]);
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 412]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await read(article)).data.name).to.equal(winner.body.data.name);
  });

  it('When an article answer is large enough to go out compressed, Then its ETag names the encoding, and If-Match takes that form too', async () => {
    const article = await makeArticle(world);
    await put(article, { description: 'A long description. '.repeat(45) }).expect(200);
    const plain = (await world.as('viewer').get(`/api/articles/${article.id}`).set('Accept-Encoding', 'identity').expect(200)).headers.etag as string;
    const gzipped = await world.as('viewer').get(`/api/articles/${article.id}`).set('Accept-Encoding', 'gzip').expect(200);
    expect(gzipped.headers['content-encoding']).to.equal('gzip');
    expect(gzipped.headers.etag).to.equal(`${plain.slice(0, -1)}-gzip"`);
    await put(article, { name: 'Compressed tag' }, gzipped.headers.etag as string).expect(200);
    await put(article, { name: 'Stale compressed tag' }, gzipped.headers.etag as string).expect(412);
  });

  it('When no If-Match is sent, Then updates are made as before (the later write of a field stays)', async () => {
    const article = await makeArticle(world);
    await put(article, { name: 'First' }).expect(200);
    await patch(article, { name: 'Second' }).expect(200);
    expect((await read(article)).data.name).to.equal('Second');
  });
});
