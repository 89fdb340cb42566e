/** POST /api/sales-orders/bulk: up to 100 orders, each created as a single create would, on its own. */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { buc, orderBody } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';
import { eventsOf, outboundState } from '../fixtures/probes.js';

describe('POST /api/sales-orders/bulk', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const bulk = (items: unknown[]) => world.as('operator').post('/api/sales-orders/bulk').send({ items });

  it('When good and bad orders come together, Then the good ones are created and reserve as single creates do, and each bad one fails alone with the errors a single create gives', async () => {
    const article = await freshArticle(world);
    await receiveStock(world, article, 10);
    const bad = orderBody(world, [buc(article, 1.5)]);
    const single = await world.as('operator').post('/api/sales-orders').send(bad).expect(422);
    const res = await bulk([
      orderBody(world, [buc(article, 3)]),
      bad,
      { ...orderBody(world, [buc(article, 2)]), partner_id: world.partners.supplier },
      orderBody(world, [buc(article, 4)]),
    ]).expect(200);

    expect(res.body.meta).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 2 });
    expect(res.body.data.map((r: { status: string }) => r.status)).to.deep.equal(['created', 'failed', 'failed', 'created']);
    expect(res.body.data[1]).to.deep.equal({ index: 1, status: 'failed', errors: single.body.errors });
    expect(Object.keys(res.body.data[2].errors)).to.deep.equal(['partner_id']);
    for (const i of [0, 3]) {
      const order = (await world.as('viewer').get(`/api/sales-orders/${res.body.data[i].id}`).expect(200)).body.data;
      expect(order.status).to.equal('new');
      expect(await eventsOf(h.db, world.client.id, 'sales_order.created', order.id)).to.have.length(1);
    }
    expect(await levels(world, article.id)).to.deep.include({ quantity: 10, reserved: 7, available: 3 });
  });

  it('When an item is not an order at all, or there are more than 100, Then the item fails naming its fields, and the request over 100 is a 422 on items that writes nothing', async () => {
    const res = await bulk([{ partner_id: world.partners.client }]).expect(200);
    expect(res.body.data[0].status).to.equal('failed');
    expect(res.body.data[0].errors).to.include.keys('source_warehouse_id', 'internal_code', 'items');
    const article = await freshArticle(world);
    const before = await outboundState(h.db, world.client.id);
    const many = Array.from({ length: 101 }, () => orderBody(world, [buc(article, 1)], { internal_code: unique('SO-BULK-') }));
    const refused = await bulk(many).expect(422);
    expect(refused.body.errors.items).to.deep.equal(['The items field must not have more than 100 items.']);
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
  });
});
