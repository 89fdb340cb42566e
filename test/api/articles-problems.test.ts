/**
 * One answer per article request: a create, an update or a master-data partial update that breaks
 * several rules answers one 422 listing every problem, each keyed as the client sent the field (an
 * alias under its own name), not the first problem met; and nothing is written.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, MDM_TEST_TOKEN, type Harness } from '../helpers/harness.js';
import { makeArticle, type TestArticle } from '../fixtures/articles.js';
import { eventsOf } from '../fixtures/probes.js';
import { receiveStock } from '../fixtures/stock.js';

const UNKNOWN_UNIT = 'The unit "PALLET" is not in the unit catalogue. Known units: BUC, KG.';
const INTEGER_ONLY = 'The integer_only field is an alias of integer_only_um3pl_quantity and must not contradict it.';

describe('One answer per article request', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const articleNow = async (id: number) => (await world.as('viewer').get(`/api/articles/${id}`).expect(200)).body.data;
  const codeTaken = 'The article_code has already been taken for this client.';

  /** An article with 5 on hand, so that its unit cannot change. */
  async function stocked(): Promise<TestArticle> {
    const article = await makeArticle(world, world.client.id, { prefix: 'PRB-' });
    await receiveStock(world, article, 5);
    return article;
  }

  describe('POST /api/articles', () => {
    it('When the client is not in scope, the unit unknown and the chosen id taken, Then one 422 names all three', async () => {
      const code = unique('PRB-C-');
      const res = await world
        .as('providerAdmin')
        .post('/api/articles')
        .send({ client_3pl_id: other.client.id, article_code: code, description: 'd', um3pl: 'PALLET', id: world.articles.otherClient.id })
        .expect(422);
      expect(res.body.errors).to.deep.equal({
        client_3pl_id: ['The client_3pl_id must be a client company in scope.'],
        um3pl: [UNKNOWN_UNIT],
        id: ['The id has already been taken.'],
      });
      expect((await world.as('providerAdmin').get(`/api/articles?search=${code}`).expect(200)).body.data).to.deep.equal([]);
    });

    it('When the aliases contradict, the unit is unknown, the id and the code are taken, Then one 422 names all four', async () => {
      const events = (await eventsOf(h.db, world.client.id, 'article.created')).length;
      const res = await world
        .as('operator')
        .post('/api/articles')
        .send({
          article_code: world.articles.client.code,
          description: 'd',
          um3pl: 'PALLET',
          id: world.articles.otherClient.id,
          integer_only: true,
          integer_only_um3pl_quantity: false,
        })
        .expect(422);
      expect(res.body.errors).to.deep.equal({ integer_only: [INTEGER_ONLY], um3pl: [UNKNOWN_UNIT], id: ['The id has already been taken.'], article_code: [codeTaken] });
      expect((await eventsOf(h.db, world.client.id, 'article.created')).length).to.equal(events);
    });
  });

  describe('PUT /api/articles/{id}', () => {
    it('When the id and client differ, the aliases contradict, the unit cannot change under stock and the code is taken, Then one 422 names all five and the article is unchanged', async () => {
      const article = await stocked();
      const before = await articleNow(article.id);
      const res = await world
        .as('operator')
        .put(`/api/articles/${article.id}`)
        .send({
          id: article.id + 1,
          client_3pl_id: world.otherClient.id,
          integer_only: true,
          integer_only_um3pl_quantity: false,
          um3pl: 'KG',
          article_code: world.articles.client.code,
          description: 'Not saved',
        })
        .expect(422);
      expect(res.body.errors).to.deep.equal({
        id: [`The id cannot change; this article's id is ${article.id}.`],
        client_3pl_id: [`The client_3pl_id cannot change; this article belongs to client ${world.client.id}.`],
        integer_only: [INTEGER_ONLY],
        um3pl: [
          `The unit of article ${article.code} cannot change while it has stock or lines on open documents (5 on hand and 0 reserved): they would be read in the new unit. Bring its stock to zero and finish or cancel those documents first.`,
        ],
        article_code: [codeTaken],
      });
      expect(await articleNow(article.id)).to.deep.equal(before);
      expect(await eventsOf(h.db, world.client.id, 'article.updated', article.id)).to.deep.equal([]);
    });

    it('When the id differs and the unit is unknown, Then one 422 names both', async () => {
      const article = await makeArticle(world, world.client.id, { prefix: 'PRB-U-' });
      const res = await world.as('operator').put(`/api/articles/${article.id}`).send({ id: article.id + 1, um3pl: 'PALLET' }).expect(422);
      expect(res.body.errors).to.deep.equal({ id: [`The id cannot change; this article's id is ${article.id}.`], um3pl: [UNKNOWN_UNIT] });
    });
  });

  describe('PATCH /api/integrations/mdm/articles/by-code/{articleCode}', () => {
    const mdm = () => api(h.app, { token: MDM_TEST_TOKEN, company: world.client.id });
    const path = (code: string) => `/api/integrations/mdm/articles/by-code/${encodeURIComponent(code)}`;

    it('When three pairs of a field and its alias disagree, Then one 422 names each alias', async () => {
      const article = await makeArticle(world, world.client.id, { prefix: 'PRB-M-' });
      const before = await articleNow(article.id);
      const res = await mdm().patch(path(article.code)).send({ uom: 'KG', unit: 'BUC', ean: '1', gtin: '2', name: 'A', title: 'B' }).expect(422);
      expect(res.body.errors).to.deep.equal({
        unit: ['The unit field and the uom field both set um3pl, with different values.'],
        gtin: ['The gtin field and the ean field both set barcode, with different values.'],
        title: ['The title field and the name field both set name, with different values.'],
      });
      expect(await articleNow(article.id)).to.deep.equal(before);
    });

    it("When an alias pair disagrees and an alias names a unit outside the catalogue, Then one 422 names both, each under the alias sent", async () => {
      const article = await stocked();
      const res = await mdm().patch(path(article.code)).send({ uom: 'PALLET', ean: '1', gtin: '2', is_active: false }).expect(422);
      expect(res.body.errors).to.deep.equal({
        gtin: ['The gtin field and the ean field both set barcode, with different values.'],
        uom: [UNKNOWN_UNIT],
      });
      const unit = await mdm().patch(path(article.code)).send({ unit: 'KG', ean: '1', gtin: '2' }).expect(422);
      expect(Object.keys(unit.body.errors)).to.deep.equal(['gtin', 'unit']);
      expect(unit.body.errors.unit[0]).to.match(/^The unit of article .* cannot change while it has stock/);
    });
  });
});
