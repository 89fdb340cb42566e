/** GraphQL and lots: the tracking flags of articles, lot and expiry_date of stock rows and movements, the lots shipment lines took; each as REST shows it. */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';

type Agent = ReturnType<World['as']>;

describe('POST /graphql: lots and expiry', () => {
  let h: Harness;
  let world: World;

  const gql = (agent: Agent, text: string): Test => agent.post('/graphql').send({ query: text });
  const data = async (text: string): Promise<Record<string, unknown>> => {
    const res = await gql(world.as('viewer'), text).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data;
  };

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When articles are queried, Then lot_tracked and expiry_tracked are what REST shows', async () => {
    const both = await trackedArticle(world);
    const expiryOnly = await trackedArticle(world, world.client.id, { lot: false, expiry: true });
    for (const a of [both, expiryOnly, world.articles.client]) {
      const rest = (await world.as('viewer').get(`/api/articles/${a.id}`).expect(200)).body.data;
      const got = await data(`{ article(id: ${a.id}) { id lot_tracked expiry_tracked } }`);
      expect(got.article).to.deep.equal({ id: a.id, lot_tracked: rest.lot_tracked, expiry_tracked: rest.expiry_tracked });
    }
    expect((await data(`{ article(id: ${both.id}) { lot_tracked expiry_tracked } }`)).article).to.deep.equal({ lot_tracked: true, expiry_tracked: true });
    expect((await data(`{ article(id: ${expiryOnly.id}) { lot_tracked expiry_tracked } }`)).article).to.deep.equal({ lot_tracked: false, expiry_tracked: true });
  });

  it('When stock and the ledger are queried, Then each row carries its lot and expiry_date as REST shows them (null for an untracked article)', async () => {
    const a = await trackedArticle(world);
    const [l1, l2] = [unique('L-'), unique('L-')];
    await receiveLots(world, a, [{ quantity: 4, lot: l1, expiry_date: dayFromToday(20) }, { quantity: 6, lot: l2, expiry_date: dayFromToday(40) }]);
    const rest = (await world.as('viewer').get(`/api/stock?article_id=${a.id}`).expect(200)).body.data;
    const got = (await data(`{ stock(article_id: ${a.id}) { id lot expiry_date quantity available } }`)).stock as unknown[];
    expect(got).to.have.deep.members(rest.map((r: Record<string, unknown>) => ({ id: r.id, lot: r.lot, expiry_date: r.expiry_date, quantity: r.quantity, available: r.available })));
    expect(got.map((r) => (r as { lot: string }).lot)).to.have.members([l1, l2]);

    const ledger = (await world.as('viewer').get(`/api/stock/movements?article_id=${a.id}`).expect(200)).body.data;
    const moves = (await data(`{ stock_movements(article_id: ${a.id}) { id lot expiry_date delta } }`)).stock_movements;
    expect(moves).to.deep.equal(ledger.map((m: Record<string, unknown>) => ({ id: m.id, lot: m.lot, expiry_date: m.expiry_date, delta: m.delta })));

    await receiveLots(world, world.articles.client, [{ quantity: 1 }]);
    const plain = (await data(`{ stock(article_id: ${world.articles.client.id}) { lot expiry_date } }`)).stock;
    expect(plain).to.deep.equal([{ lot: null, expiry_date: null }]);
  });

  it('When a shipment is queried, Then its lines carry the lots they took, as REST shows them', async () => {
    const a = await trackedArticle(world);
    const lot = unique('L-');
    await receiveLots(world, a, [{ quantity: 5, lot, expiry_date: dayFromToday(15) }]);
    const order = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 3 }]);
    await moveThrough(world, order.id, ['picking']);
    const shipment = await ship(world, order, [[0, 2]]);
    const got = (await data(`{ shipment(id: ${shipment.id}) { items { id lots { lot expiry_date quantity_um3pl } } } }`)).shipment as { items: unknown[] };
    expect(got.items).to.deep.equal(shipment.items.map((i) => ({ id: i.id, lots: i.lots })));
    expect(shipment.items[0]!.lots).to.deep.equal([{ lot, expiry_date: dayFromToday(15), quantity_um3pl: 2 }]);
  });
});
