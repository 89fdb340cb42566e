/**
 * PUT /api/articles/{id} with a new article_code: document lines and stock rows carry the article's
 * current code (read when they are read), so they show the new one at once, while their
 * updated_at stays and no event is recorded for them: article.updated is the only trace of the
 * change, the one a mirror follows (docs/guide/sync.md, "An article's new code").
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { feedEnd, readFeed } from '../fixtures/events.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder } from '../fixtures/sales-orders.js';

type Shown = Record<string, unknown> & { items?: Array<Record<string, unknown>> };

/** A document as it would read with `code` on its lines. */
function withLineCode(document: Shown, code: string): Shown {
  return { ...document, items: document.items!.map((line) => ({ ...line, article_code: code })) };
}

describe('PUT /api/articles/{id}: a new article_code', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When an article with a purchase order, a reception, a sales order and stock gets a new code, Then GET shows the new code on their lines and stock rows with their updated_at unchanged, updated_since lists none of them, and the feed has one article.updated and nothing else', async () => {
    const article = await freshArticle(world);
    const operator = world.as('operator');
    const viewer = world.as('viewer');
    const po = await createOrder(operator, world.partners.supplier, [buc(article, 10)]);
    const reception = await receive(operator, po.id, world.warehouses[0]!, [[po.items[0]!.id, 6]]);
    const so = await createSalesOrder(world, [buc(article, 2)]);
    const paths = [`/api/purchase-orders/${po.id}`, `/api/receptions/${reception.id}`, `/api/sales-orders/${so.id}`];
    const read = async () => Promise.all(paths.map(async (path) => (await viewer.get(path).expect(200)).body.data as Shown));
    const stock = async () => (await viewer.get(`/api/stock?article_id=${article.id}`).expect(200)).body.data as Shown[];
    const [documents, rows] = [await read(), await stock()];
    expect(rows).to.have.length(1);
    for (const shown of [...documents.flatMap((d) => d.items!), ...rows]) expect(shown.article_code).to.equal(article.code);
    const mark = await feedEnd(viewer);

    const code = unique('RENAMED-');
    const renamed = (await operator.put(`/api/articles/${article.id}`).send({ article_code: code }).expect(200)).body.data as Shown;
    expect(renamed.article_code).to.equal(code);

    expect(await read(), 'the lines show the new code; each document as it was otherwise, updated_at included').to.deep.equal(documents.map((d) => withLineCode(d, code)));
    expect(await stock(), 'the stock row shows the new code, updated_at unchanged').to.deep.equal(rows.map((r) => ({ ...r, article_code: code })));
    expect((await viewer.get(`/api/stock?article_code=${code}`).expect(200)).body.data).to.have.length(1);
    expect((await viewer.get(`/api/stock?article_code=${article.code}`).expect(200)).body.data).to.deep.equal([]);

    // A mirror that follows updated_since from the rename on reads none of them again.
    const since = encodeURIComponent(renamed.updated_at as string);
    for (const [list, id] of [['purchase-orders', po.id], ['receptions', reception.id], ['sales-orders', so.id]] as const) {
      const listed = (await viewer.get(`/api/${list}?updated_since=${since}&per_page=100`).expect(200)).body.data as Shown[];
      expect(listed.map((d) => d.id), list).not.to.include(id);
    }
    expect((await viewer.get(`/api/stock?article_id=${article.id}&updated_since=${since}`).expect(200)).body.data).to.deep.equal([]);

    const events = await readFeed(viewer, mark);
    expect(events.map((e) => [e.type, e.data])).to.deep.equal([['article.updated', renamed]]);
  });
});
