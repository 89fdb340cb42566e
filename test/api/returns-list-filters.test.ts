/** GET /api/returns filters: `sales_order_id` (the returns against one order) and `updated_since`, in REST and GraphQL. */
import { expect } from 'chai';
import { nowDb, toApiTime } from '../../src/kernel/time.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';

describe('GET /api/returns filters', () => {
  let h: Harness;
  let world: World;
  let orderIds: number[];
  const returnIds: number[] = [];
  let mark: string;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 4);
    orderIds = [];
    for (let i = 0; i < 2; i++) orderIds.push((await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, ['picking', 'picked', 'delivered'])).id);
    const ret = (salesOrder: number | null) => world.as('operator').post('/api/returns')
      .send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: salesOrder, items: [buc(a, 1)] }).expect(201);
    returnIds.push((await ret(orderIds[0]!)).body.data.id, (await ret(null)).body.data.id);
    mark = toApiTime(nowDb());
    returnIds.push((await ret(orderIds[1]!)).body.data.id, (await ret(orderIds[0]!)).body.data.id);
  });

  const ids = (body: { data: Array<{ id: number }> }) => body.data.map((r) => r.id);

  it('When sales_order_id is given, Then only the returns against that order come, newest first', async () => {
    const res = await world.as('viewer').get(`/api/returns?sales_order_id=${orderIds[0]}`).expect(200);
    expect(ids(res.body)).to.deep.equal([returnIds[3], returnIds[0]]);
    expect(res.body.meta.total).to.equal(2);
    expect(ids((await world.as('viewer').get(`/api/returns?sales_order_id=${orderIds[1]}`).expect(200)).body)).to.deep.equal([returnIds[2]]);
  });

  it('When updated_since is given, Then only the returns written at or after it come; with sales_order_id both apply', async () => {
    const since = encodeURIComponent(mark);
    expect(ids((await world.as('viewer').get(`/api/returns?updated_since=${since}`).expect(200)).body)).to.deep.equal([returnIds[3], returnIds[2]]);
    expect(ids((await world.as('viewer').get(`/api/returns?updated_since=${since}&sales_order_id=${orderIds[0]}`).expect(200)).body)).to.deep.equal([returnIds[3]]);
  });

  it('When GraphQL returns are asked for one sales order, Then only those come, by id', async () => {
    const res = await world.as('viewer').post('/graphql').send({ query: `{ returns(sales_order_id: ${orderIds[0]}) { id sales_order_id } }` }).expect(200);
    expect(res.body.data.returns).to.deep.equal([{ id: returnIds[0], sales_order_id: orderIds[0] }, { id: returnIds[3], sales_order_id: orderIds[0] }]);
  });
});
