/** GraphQL stock_movements: the ledger as GET /api/stock/movements reads it, keyset paging, the stock module. */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { freshArticle } from '../fixtures/articles.js';
import { adjust, deltaLine } from '../fixtures/stock-adjustments.js';
import { transfer, transferLine } from '../fixtures/stock-transfers.js';

const MOVEMENT = 'id created_at client_3pl_id warehouse_id article_id article_code stock_type lot expiry_date delta quantity_after cause document { type id }';

describe('POST /graphql: stock_movements', () => {
  let h: Harness;
  let world: World;
  const gql = (agent: ReturnType<World['as']>, text: string, variables?: object): Test => agent.post('/graphql').send({ query: text, variables });

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When the ledger is queried, Then it answers the rows of GET /api/stock/movements, a page at a time after the last id seen', async () => {
    const a = await freshArticle(world);
    const [w1, w2] = world.warehouses as [number, number];
    await adjust(world, [deltaLine(a, 5)], { reason: 'found' });
    await transfer(world, [transferLine(a, 2, [w1, 'STOC_OK'], [w2, 'STOC_OK'])]);
    const rest = (await world.as('viewer').get(`/api/stock/movements?article_id=${a.id}`).expect(200)).body.data;
    expect(rest).to.have.length(3);
    const first = await gql(world.as('viewer'), `{ stock_movements(article_id: ${a.id}, limit: 2) { ${MOVEMENT} } }`).expect(200);
    expect(first.body.errors).to.equal(undefined);
    expect(first.body.data.stock_movements).to.deep.equal(rest.slice(0, 2));
    const next = await gql(world.as('viewer'), `query($after: Int) { stock_movements(article_id: ${a.id}, after: $after) { id } }`, { after: rest[1].id }).expect(200);
    expect(next.body.data.stock_movements).to.deep.equal([{ id: rest[2].id }]);
  });

  it('When the stock module is off, Then stock_movements answers FORBIDDEN', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['stock'] });
    const res = await gql(off.as('viewer'), '{ stock_movements { id } }');
    expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
  });
});
