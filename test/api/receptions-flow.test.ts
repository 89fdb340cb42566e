/** The inbound flow end to end: an order of 10 BUC and 7.5 KG received in two receptions, stock and order in step. */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { kgArticle, type TestArticle } from '../fixtures/articles.js';
import { balance, eventsOf, movementsOf } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';

describe('POST /api/receptions (an order received in two receptions)', () => {
  let h: Harness;
  let world: World;
  let kg: TestArticle;
  let wh1: number;
  let wh2: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    kg = await kgArticle(world, world.client.id);
    [wh1, wh2] = world.warehouses as [number, number];
  });

  const stockRows = async (): Promise<string[]> =>
    (await world.as('viewer').get('/api/stock?per_page=200').expect(200)).body.data.map(
      (r: { warehouse_id: number; article_id: number; stock_type: string; quantity: number; available: number }) => `${r.warehouse_id}/${r.article_id}/${r.stock_type}=${r.quantity}/${r.available}`,
    );
  const orderNow = async (id: number): Promise<PurchaseOrder> => (await world.as('viewer').get(`/api/purchase-orders/${id}`).expect(200)).body.data;
  const received = (po: PurchaseOrder): number[] => po.items.map((i) => i.received_quantity_um3pl);

  it('When 10 BUC and 7.5 KG arrive in two receptions, Then the order goes open → partially_received → received and stock rises by exactly what was received', async () => {
    const agent = world.as('operator');
    // Stock that was there before: 3 BUC in the first warehouse from an earlier order.
    const earlier = await createOrder(agent, world.partners.supplier, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 3 }]);
    await receive(agent, earlier.id, wh1, [[earlier.items[0]!.id, 3]]);
    expect(await stockRows()).to.deep.equal([`${wh1}/${world.articles.client.id}/STOC_OK=3/3`]);

    const po = await createOrder(agent, world.partners.supplier, [
      { article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 10 },
      { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 7.5 },
    ]);
    expect(po.status).to.equal('open');
    const [buc, kgItem] = [po.items[0]!.id, po.items[1]!.id];

    const first = await receive(agent, po.id, wh1, [[buc, 4], [kgItem, '2,5']]);
    let now = await orderNow(po.id);
    expect(now.status).to.equal('partially_received');
    expect(received(now)).to.deep.equal([4, 2.5]);
    expect(await stockRows()).to.deep.equal([`${wh1}/${world.articles.client.id}/STOC_OK=7/7`, `${wh1}/${kg.id}/STOC_OK=2.5/2.5`]);

    const second = await receive(world.as('providerAdmin', world.client.id), po.id, wh2, [[kgItem, '5,000'], [buc, 6]]);
    now = await orderNow(po.id);
    expect(now.status).to.equal('received');
    expect(received(now)).to.deep.equal([10, 7.5]);
    expect(now.items.map((i) => i.quantity_um3pl)).to.deep.equal([10, 7.5]);
    expect(await stockRows()).to.deep.equal([
      `${wh1}/${world.articles.client.id}/STOC_OK=7/7`,
      `${wh1}/${kg.id}/STOC_OK=2.5/2.5`,
      // Lines are applied by article (the lock order), whatever order the reception lists them in.
      `${wh2}/${world.articles.client.id}/STOC_OK=6/6`,
      `${wh2}/${kg.id}/STOC_OK=5/5`,
    ]);

    // Per warehouse and article, in thousandths as stored.
    const at = (warehouseId: number, articleId: number) => balance(h.db, { clientId: world.client.id, warehouseId, articleId });
    expect([await at(wh1, world.articles.client.id), await at(wh2, world.articles.client.id), await at(wh1, kg.id), await at(wh2, kg.id)]).to.deep.equal([7000, 6000, 2500, 5000]);

    // The ledger: each reception's movements are exactly its lines.
    expect((await movementsOf(h.db, 'reception', first.id)).map((m) => [m.warehouse_id, m.article_id, m.delta, m.cause])).to.deep.equal([
      [wh1, world.articles.client.id, 4000, 'reception'],
      [wh1, kg.id, 2500, 'reception'],
    ]);
    expect((await movementsOf(h.db, 'reception', second.id)).map((m) => [m.warehouse_id, m.article_id, m.delta, m.cause])).to.deep.equal([
      [wh2, world.articles.client.id, 6000, 'reception'],
      [wh2, kg.id, 5000, 'reception'],
    ]);

    // The order's events follow its status; the last one is the order as it reads now.
    const statuses = (await eventsOf(h.db, world.client.id, 'purchase_order.updated', po.id)).map((d) => (d as PurchaseOrder).status);
    expect(statuses).to.deep.equal(['partially_received', 'received']);
    expect((await eventsOf(h.db, world.client.id, 'purchase_order.updated', po.id)).at(-1)).to.deep.equal(now);
    expect(await eventsOf(h.db, world.client.id, 'reception.created')).to.have.length(3);

    // Nothing remains: a third reception is refused; the list filter finds the order received.
    const res = await agent.post('/api/receptions').send({ purchase_order_id: po.id, warehouse_id: wh1, selected_items: [{ po_item_id: kgItem, quantity_um3pl: 0.001 }] }).expect(422);
    expect(res.body.errors).to.deep.equal({ 'selected_items.0.quantity_um3pl': ['Receiving 0.001 would exceed the 0 remaining on this line (7.5 ordered).'] });
    const listed = await world.as('viewer').get('/api/purchase-orders?status=received').expect(200);
    expect(listed.body.data.map((o: { id: number }) => o.id)).to.deep.equal([po.id, earlier.id]);
    const receptions = await world.as('viewer').get(`/api/receptions?purchase_order_id=${po.id}`).expect(200);
    expect(receptions.body.data).to.deep.equal([second, first]);
  });
});
