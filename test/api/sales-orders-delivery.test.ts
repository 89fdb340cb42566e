/** Moving a sales order to `delivered`: stock falls by every line, all or nothing, with its movements and events; too little stock is a 422 on `status` naming each short balance. */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { deliveryMovements, lastEventId, movementsOf, outboundState, outboxRows } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, type Line } from '../fixtures/sales-orders.js';
import { levels, receiveStock, stockRow } from '../fixtures/stock.js';

const SHORT = 'Not enough stock to deliver the order; nothing was delivered.';

describe('Delivering a sales order (POST /api/sales-orders/{id}/status delivered)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const deliver = (id: number) => world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status: 'delivered' });
  const kgLine = (article: Article, quantity: number | string): Line => ({ article_id: article.id, um3pl: 'KG', quantity_um3pl: quantity });
  const eventRows = async (afterId: number) => (await outboxRows(h.db, { companyId: world.client.id, afterId })).map((e) => [e.type, e.data]);
  const shortfall = (article: Article, onHand: number, needed: number, short: number, warehouse = world.warehouses[0], stockType = 'STOC_OK', by = '') =>
    `Not enough ${stockType} stock of article ${article.code} in warehouse ${warehouse}: ${onHand} on hand, ${needed} needed${by}, short by ${short}.`;

  it('When a picked order of two lines is delivered, Then stock falls by each line, its reservation is released, one movement per line and the events are recorded', async () => {
    const a = await freshArticle(world, world.client.id);
    const kg = await freshArticle(world, world.client.id, 'KG');
    await receiveStock(world, a, 10);
    await receiveStock(world, kg, 4, world.warehouses[0], 'KG');
    await createSalesOrder(world, [buc(a, 2)]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 3), kgLine(kg, '2,5')])).id, ['picking', 'picked']);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 5, available: 5, backordered: 0 });
    expect(await levels(world, kg.id)).to.deep.equal({ quantity: 4, reserved: 2.5, available: 1.5, backordered: 0 });
    const since = await lastEventId(h.db);

    const res = await deliver(order.id).expect(200);
    const delivered = res.body.data;
    expect(delivered).to.deep.include({ id: order.id, status: 'delivered', items: order.items.map((i) => ({ ...i, delivered_quantity_um3pl: i.quantity_um3pl })) });
    expect(delivered.status_history.map((e: { status: string }) => e.status)).to.deep.equal(['new', 'picking', 'picked', 'delivered']);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 7, reserved: 2, available: 5, backordered: 0 });
    expect(await levels(world, kg.id)).to.deep.equal({ quantity: 1.5, reserved: 0, available: 1.5, backordered: 0 });

    const user = world.users.operator.id;
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([
      [a.id, -3000, 'STOC_OK', 'delivery', world.warehouses[0], user],
      [kg.id, -2500, 'STOC_OK', 'delivery', world.warehouses[0], user],
    ]);
    const movements = await movementsOf(h.db, 'sales_order', order.id);
    expect(movements.map((m) => m.company_id)).to.deep.equal([world.client.id, world.client.id]);

    // The delivery is one shipment of every line, without tracking; the movements keep the order as their document.
    expect(delivered.shipments).to.have.length(1);
    const shipment = (await world.as('viewer').get(`/api/shipments/${delivered.shipments[0].id}`).expect(200)).body.data;
    expect(shipment).to.deep.include({ sales_order_id: order.id, carrier: null, service: null, tracking_number: null, tracking_url: null, internal_code: null });
    expect(shipment.items.map((i: { so_item_id: number; quantity_um3pl: number }) => [i.so_item_id, i.quantity_um3pl])).to.deep.equal(order.items.map((i) => [i.id, i.quantity_um3pl]));
    expect(await eventRows(since)).to.deep.equal([
      ['stock.changed', { ...(await stockRow(world, a.id)), delta: -3, cause: 'delivery', document: { type: 'sales_order', id: order.id } }],
      ['stock.changed', { ...(await stockRow(world, kg.id)), delta: -2.5, cause: 'delivery', document: { type: 'sales_order', id: order.id } }],
      ['shipment.created', shipment],
      ['sales_order.status_changed', delivered],
    ]);
  });

  it('When the order is of STOC_DEFECT stock in the second warehouse, Then only that stock falls', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    await receiveStock(world, a, 10, world.warehouses[1]);
    await world.as('operator').post('/api/returns')
      .send({ partner_id: world.partners.client, warehouse_id: world.warehouses[1], items: [{ ...buc(a, 3), stock_type: 'STOC_DEFECT' }] })
      .expect(201);
    const order = await createSalesOrder(world, [buc(a, 2)], { source_warehouse_id: world.warehouses[1], stock_type: 'STOC_DEFECT' });
    await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);
    expect(await levels(world, a.id, world.warehouses[1], 'STOC_DEFECT')).to.deep.equal({ quantity: 1, reserved: 0, available: 1, backordered: 0 });
    expect(await levels(world, a.id, world.warehouses[1], 'STOC_OK')).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    expect(await levels(world, a.id, world.warehouses[0], 'STOC_OK')).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    expect(await deliveryMovements(h.db, order.id)).to.deep.equal([[a.id, -2000, 'STOC_DEFECT', 'delivery', world.warehouses[1], world.users.operator.id]]);
  });

  describe('too little stock', () => {
    /** Delivers and expects a 422 with exactly `errors`, and that nothing of the client changed. */
    async function refused(orderId: number, errors: Record<string, string[]>, articles: Article[]): Promise<void> {
      const before = await outboundState(h.db, world.client.id);
      const stock = await Promise.all(articles.map((a) => levels(world, a.id)));
      const res = await deliver(orderId).expect(422);
      expect(res.body).to.deep.equal({ message: SHORT, errors });
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      expect(await Promise.all(articles.map((a) => levels(world, a.id)))).to.deep.equal(stock);
      expect((await h.db('sales_orders').where('id', orderId).first()).status).to.equal('picked');
      expect(await deliveryMovements(h.db, orderId)).to.deep.equal([]);
    }

    it('When two of three lines are short, Then it answers 422 on status (the field the client sent) naming each short article with its shortfall, in the order\'s line order, and nothing changes', async () => {
      const [a, b, c] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
      await receiveStock(world, a, 10);
      await receiveStock(world, b, 2);
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 3), buc(b, 5), buc(c, 4)])).id, ['picking', 'picked']);
      await refused(order.id, { status: [shortfall(b, 2, 5, 3), shortfall(c, 0, 4, 4)] }, [a, b, c]);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 3, available: 7, backordered: 0 });
      expect((await world.as('viewer').get(`/api/sales-orders/${order.id}`).expect(200)).body.data).to.deep.equal(order);
    });

    it('When only the last line is short, Then the first lines are not delivered either', async () => {
      const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
      await receiveStock(world, a, 10);
      await receiveStock(world, b, 1);
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 10), buc(b, 2)])).id, ['picking', 'picked']);
      await refused(order.id, { status: [shortfall(b, 1, 2, 1)] }, [a, b]);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 10, available: 0, backordered: 0 });
    });

    it('When two lines of one article together need more than on hand, Then the message gives what is on hand against what both lines need (not what the first left) and neither is delivered; within stock both are', async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 4);
      const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2), buc(a, 3)])).id, ['picking', 'picked']);
      const before = await outboundState(h.db, world.client.id);
      const res = await deliver(order.id).expect(422);
      expect(res.body).to.deep.equal({ message: SHORT, errors: { status: [shortfall(a, 4, 5, 1, world.warehouses[0], 'STOC_OK', " by the order's lines")] } });
      expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 4, reserved: 5, available: 0, backordered: 1 });

      await receiveStock(world, a, 1);
      await deliver(order.id).expect(200);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
      expect((await deliveryMovements(h.db, order.id)).map((m) => m[1])).to.deep.equal([-2000, -3000]);
    });

    it('When two KG lines of 1 and 0.5 meet 1.234 on hand, Then the message on status gives 1.234 on hand against the 1.5 both need, short by 0.266', async () => {
      const kg = await freshArticle(world, world.client.id, 'KG');
      await receiveStock(world, kg, 1.234, world.warehouses[0], 'KG');
      const order = await moveThrough(world, (await createSalesOrder(world, [kgLine(kg, 1), kgLine(kg, '0,5')])).id, ['picking', 'picked']);
      await refused(order.id, { status: [shortfall(kg, 1.234, 1.5, 0.266, world.warehouses[0], 'STOC_OK', " by the order's lines")] }, [kg]);
    });

    it('When a KG line is short by a fraction, Then the message shows the decimals', async () => {
      const kg = await freshArticle(world, world.client.id, 'KG');
      await receiveStock(world, kg, 1.25, world.warehouses[0], 'KG');
      const order = await moveThrough(world, (await createSalesOrder(world, [kgLine(kg, '2,5')])).id, ['picking', 'picked']);
      await refused(order.id, { status: [shortfall(kg, 1.25, 2.5, 1.25)] }, [kg]);
    });

    it('When the stock is in another warehouse or of another type, Then the order is short in its own', async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 10);
      const elsewhere = await moveThrough(world, (await createSalesOrder(world, [buc(a, 1)], { source_warehouse_id: world.warehouses[1] })).id, ['picking', 'picked']);
      await refused(elsewhere.id, { status: [shortfall(a, 0, 1, 1, world.warehouses[1])] }, [a]);
      const quarantined = await moveThrough(world, (await createSalesOrder(world, [buc(a, 1)], { stock_type: 'STOC_QUARANTINE' })).id, ['picking', 'picked']);
      await refused(quarantined.id, { status: [shortfall(a, 0, 1, 1, world.warehouses[0], 'STOC_QUARANTINE')] }, [a]);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 10, reserved: 0, available: 10, backordered: 0 });
    });

    it('When an earlier delivery took the stock, Then the next is short; once stock arrives it is delivered', async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 5);
      const first = await moveThrough(world, (await createSalesOrder(world, [buc(a, 3)])).id, ['picking', 'picked']);
      const second = await moveThrough(world, (await createSalesOrder(world, [buc(a, 3)])).id, ['picking', 'picked']);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 5, reserved: 6, available: 0, backordered: 1 });
      await deliver(first.id).expect(200);
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 2, reserved: 3, available: 0, backordered: 1 });
      await refused(second.id, { status: [shortfall(a, 2, 3, 1)] }, [a]);

      await receiveStock(world, a, 1);
      const res = await deliver(second.id).expect(200);
      expect(res.body.data.status).to.equal('delivered');
      expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
      expect(await deliveryMovements(h.db, second.id)).to.deep.equal([[a.id, -3000, 'STOC_OK', 'delivery', world.warehouses[0], world.users.operator.id]]);
    });
  });
});
