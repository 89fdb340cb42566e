/** Done when: an order is created, picked, delivered and partly returned, with stock right at every step. */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { movements } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';

describe('Sales order from creation to a partial return', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const stockOf = async (articleId: number, stockType = 'STOC_OK') => {
    const res = await world.as('viewer').get(`/api/stock?article_id=${articleId}&stock_type=${stockType}&warehouse_id=${world.warehouses[0]}`).expect(200);
    const row = res.body.data[0];
    return row ? { quantity: row.quantity, reserved: row.reserved, available: row.available, backordered: row.backordered } : undefined;
  };

  it('When the order goes new, picking, picked, delivered and is partly returned, Then stock and reservations follow', async () => {
    const article = world.articles.client.id;
    await receiveStock(world, world.articles.client, 10);
    expect(await stockOf(article)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });

    const so = await createSalesOrder(world, [buc(world.articles.client, 6)], { internal_code: 'SO-FLOW' });
    expect(so).to.include({ status: 'new', stock_type: 'STOC_OK' });
    expect(await stockOf(article)).to.deep.equal({ quantity: 10, reserved: 6, available: 4, backordered: 0 });

    const id = so.id;
    const delivered = await moveThrough(world, id, ['picking', 'picked', 'delivered']);
    expect(delivered.status_history.map((h: { status: string }) => h.status)).to.deep.equal(['new', 'picking', 'picked', 'delivered']);
    expect(delivered.status_history[3]!.user).to.include({ id: world.users.operator.id });
    expect(await stockOf(article)).to.deep.equal({ quantity: 4, reserved: 0, available: 4, backordered: 0 });

    await world.as('operator').post('/api/returns')
      .send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: id, items: [{ article_id: article, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT' }, { article_id: article, um3pl: 'BUC', quantity_um3pl: 1 }] })
      .expect(201);
    expect(await stockOf(article)).to.deep.equal({ quantity: 5, reserved: 0, available: 5, backordered: 0 });
    expect(await stockOf(article, 'STOC_DEFECT')).to.deep.equal({ quantity: 2, reserved: 0, available: 2, backordered: 0 });

    const tooMuch = await world.as('operator').post('/api/returns')
      .send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: id, items: [{ article_id: article, um3pl: 'BUC', quantity_um3pl: 4 }] })
      .expect(422);
    expect(tooMuch.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': ['At most 3 of this article can still be returned (6 delivered).'] });
    const moved = await movements(h.db, { company_id: world.client.id, article_id: article });
    expect(moved.map((m) => [m.delta, m.cause, m.stock_type])).to.deep.equal([
      [10000, 'reception', 'STOC_OK'],
      [-6000, 'delivery', 'STOC_OK'],
      [2000, 'return', 'STOC_DEFECT'],
      [1000, 'return', 'STOC_OK'],
    ]);
  });
});
