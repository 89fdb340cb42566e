/** What open sales orders reserve, as GET /api/stock shows it: reserved, available and backordered, per warehouse and stock type. */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { balances, movements } from '../fixtures/probes.js';
import { buc, createSalesOrder, createSalesOrderOf, moveThrough } from '../fixtures/sales-orders.js';
import { levels, receiveStock, stockRow } from '../fixtures/stock.js';

describe('Sales-order reservations in GET /api/stock', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const move = (id: number, status: string) => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status }).expect(200);

  it('When an order is within the stock, Then reserved rises and available falls by its quantity, on hand unchanged', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    await createSalesOrder(world, [buc(a, 4)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 4, available: 6, backordered: 0 });
    const [row] = await balances(h.db, { article_id: a.id, warehouse_id: world.warehouses[0]!, stock_type: 'STOC_OK' });
    expect([row!.quantity, row!.reserved]).to.deep.equal([10_000, 4_000]);
  });

  it('When an order goes beyond the available stock, Then it is accepted (201) and shows as backordered', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 5);
    const order = await createSalesOrder(world, [buc(a, 8)]);
    expect(order.status).to.equal('new');
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 5, reserved: 8, available: 0, backordered: 3 });
  });

  it('When there is no stock at all, Then the order is accepted and a row with quantity 0 appears, all of it backordered', async () => {
    const a = await freshArticle(world, world.client.id);
    expect(await stockRow(world, a.id)).to.equal(undefined);
    await createSalesOrder(world, [buc(a, 6)]);
    const row = await stockRow(world, a.id);
    expect(row).to.deep.include({
      client_3pl_id: world.client.id, warehouse_id: world.warehouses[0], article_id: a.id, article_code: a.code, stock_type: 'STOC_OK',
      quantity: 0, reserved: 6, available: 0, backordered: 6,
    });
    expect(await movements(h.db, { article_id: a.id })).to.deep.equal([]);
    const all = await world.as('viewer').get(`/api/stock?article_id=${a.id}`).expect(200);
    expect(all.body.data).to.have.length(1);
  });

  it('When two orders reserve the same stock, Then their quantities add up, and backordered shows what is missing', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    await createSalesOrder(world, [buc(a, 3)]);
    await createSalesOrder(world, [buc(a, 4)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 7, available: 3, backordered: 0 });
    await createSalesOrder(world, [buc(a, 5)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 12, available: 0, backordered: 2 });
  });

  it('When one order has two lines of the same article, Then both reserve', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    await createSalesOrder(world, [buc(a, 2), buc(a, 3)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 5, available: 5, backordered: 0 });
  });

  it('When an order moves to picking and picked, Then it still reserves; when it is cancelled, its reservation alone is released', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    const kept = await createSalesOrder(world, [buc(a, 2)]);
    const order = await createSalesOrder(world, [buc(a, 5)]);
    await move(order.id, 'picking');
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 7, available: 3, backordered: 0 });
    await move(order.id, 'picked');
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 7, available: 3, backordered: 0 });
    await move(order.id, 'cancelled');
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 2, available: 8, backordered: 0 });
    await move(kept.id, 'cancelled');
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
  });

  it('When a backordered order is cancelled, Then backordered falls back to 0', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 1);
    const order = await createSalesOrder(world, [buc(a, 4)]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 1, reserved: 4, available: 0, backordered: 3 });
    await move(order.id, 'cancelled');
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 1, reserved: 0, available: 1, backordered: 0 });
  });

  it('When an order is delivered, Then its reservation is released and on hand falls; other orders keep theirs', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    await createSalesOrder(world, [buc(a, 3)]);
    const order = await createSalesOrder(world, [buc(a, 4)]);
    await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 6, reserved: 3, available: 3, backordered: 0 });
  });

  it("When orders come from another warehouse or stock type, Then they reserve that warehouse's and type's stock only", async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    await receiveStock(world, a, 4, world.warehouses[1]);
    await createSalesOrder(world, [buc(a, 3)], { source_warehouse_id: world.warehouses[1] });
    await createSalesOrder(world, [buc(a, 2)], { stock_type: 'STOC_QUARANTINE' });
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    expect(await levels(world, a.id, world.warehouses[1])).to.deep.equal({ quantity: 4, reserved: 3, available: 1, backordered: 0 });
    expect(await levels(world, a.id, world.warehouses[0], 'STOC_QUARANTINE')).to.deep.equal({ quantity: 0, reserved: 2, available: 0, backordered: 2 });
  });

  it("When another client's order reserves its article, Then the client's viewer does not see that row", async () => {
    const b = await freshArticle(world, world.otherClient.id);
    await createSalesOrderOf(world, world.otherClient.id, [buc(b, 2)], { internal_code: `SO-B-${b.code}` });
    expect((await world.as('viewer').get(`/api/stock?article_id=${b.id}`).expect(200)).body.data).to.deep.equal([]);
    const seen = await world.as('otherClientAdmin').get(`/api/stock?article_id=${b.id}`).expect(200);
    expect(seen.body.data.map((r: { reserved: number; quantity: number }) => [r.quantity, r.reserved])).to.deep.equal([[0, 2]]);
  });
});
