/**
 * A deactivated article (`active: false`) cannot go on a new document line: purchase orders, sales
 * orders and returns answer a 422 on that line's `article_id`. A document that already has lines of
 * it may keep them when its lines are replaced, and a reception may still receive an existing
 * purchase-order line of it (the goods were ordered and have arrived).
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, moveThrough, orderBody } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';

describe('Deactivated articles on document lines', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const deactivate = (a: Article) => world.as('operator').put(`/api/articles/${a.id}`).send({ active: false }).expect(200);
  const refusal = (a: Article) => `Article ${a.code} is deactivated; it cannot go on new lines.`;
  const count = async (table: string, where: Record<string, unknown>) => Number((await h.db(table).where(where).count({ n: '*' }).first())!.n);

  it('When a purchase order, a sales order or a return names it, Then each answers 422 on that line\'s article_id and stores nothing', async () => {
    const [active, gone] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, gone, 5);
    await deactivate(gone);
    const agent = world.as('operator');
    const po = await agent.post('/api/purchase-orders').send({ partner_id: world.partners.supplier, internal_code: unique('PO-'), items: [buc(active, 1), buc(gone, 1)] }).expect(422);
    expect(po.body.errors).to.deep.equal({ 'items.1.article_id': [refusal(gone)] });
    const so = await agent.post('/api/sales-orders').send(orderBody(world, [buc(gone, 1)])).expect(422);
    expect(so.body.errors).to.deep.equal({ 'items.0.article_id': [refusal(gone)] });
    const ret = await agent.post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], items: [buc(gone, 1)] }).expect(422);
    expect(ret.body.errors).to.deep.equal({ 'items.0.article_id': [refusal(gone)] });
    expect(await count('purchase_order_items', { article_id: gone.id })).to.equal(1); // the reception's order, before it was deactivated
    expect(await count('sales_order_items', { article_id: gone.id })).to.equal(0);
    expect(await count('return_items', { article_id: gone.id })).to.equal(0);
  });

  it('When lines are replaced, Then a deactivated article the document already had may stay; one it did not have is refused', async () => {
    const [kept, added] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    const po = await createOrder(world.as('operator'), world.partners.supplier, [buc(kept, 1)]);
    const so = await createSalesOrder(world, [buc(kept, 1)]);
    await deactivate(kept);
    await deactivate(added);
    await world.as('operator').put(`/api/purchase-orders/${po.id}`).send({ items: [buc(kept, 4)] }).expect(200);
    await world.as('operator').put(`/api/sales-orders/${so.id}`).send({ items: [buc(kept, 2)] }).expect(200);
    const refusedPo = await world.as('operator').put(`/api/purchase-orders/${po.id}`).send({ items: [buc(kept, 4), buc(added, 1)] }).expect(422);
    expect(refusedPo.body.errors).to.deep.equal({ 'items.1.article_id': [refusal(added)] });
    const refusedSo = await world.as('operator').put(`/api/sales-orders/${so.id}`).send({ items: [buc(added, 1)] }).expect(422);
    expect(refusedSo.body.errors).to.deep.equal({ 'items.0.article_id': [refusal(added)] });
  });

  it('When an existing purchase-order line of a deactivated article is received, Then the reception is accepted and the stock rises; the stock can still be delivered', async () => {
    const a = await freshArticle(world, world.client.id);
    const po = await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 3)]);
    const so = await createSalesOrder(world, [buc(a, 3)]);
    await deactivate(a);
    await receive(world.as('operator'), po.id, world.warehouses[0]!, [[po.items[0]!.id, 3]]);
    await moveThrough(world, so.id, ['picking', 'picked', 'delivered']);
  });

  it('When the article is active again, Then it goes on new lines again', async () => {
    const a = await freshArticle(world, world.client.id);
    await deactivate(a);
    await world.as('operator').put(`/api/articles/${a.id}`).send({ active: true }).expect(200);
    await createSalesOrder(world, [buc(a, 1)]);
  });
});
