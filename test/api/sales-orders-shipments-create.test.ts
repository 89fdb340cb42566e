/**
 * POST /api/sales-orders/{id}/shipments: part of an order or all that is left ships in one
 * transaction with its carrier and tracking; stock and the reservation fall by what shipped, the
 * lines show it, the order becomes partially_delivered or delivered, and the events follow in order.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { eventsAfter, expectApiTime, expectId, lastEventId as lastEvent, ledgerMismatches, movementsOf } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, ship, type Line, type SalesOrder, type Shipment } from '../fixtures/sales-orders.js';
import { levels, receiveStock, stockRow } from '../fixtures/stock.js';

const SHIPMENT_FIELDS = ['id', 'sales_order_id', 'client_3pl_id', 'carrier', 'service', 'tracking_number', 'tracking_url', 'shipped_at', 'internal_code', 'items', 'created_at', 'updated_at'];

describe('POST /api/sales-orders/{id}/shipments', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const kgLine = (article: Article, quantity: number | string): Line => ({ article_id: article.id, um3pl: 'KG', quantity_um3pl: quantity });
  const getOrder = async (id: number): Promise<SalesOrder> => (await world.as('viewer').get(`/api/sales-orders/${id}`).expect(200)).body.data;
  const lastEventId = () => lastEvent(h.db);
  const eventsSince = (afterId: number) => eventsAfter(h.db, world.client.id, afterId);

  /** A picked order of `lines`, each article's stock received first (`stock` per line, the line's quantity unless told). */
  async function pickedOrder(lines: Line[], stock?: number[]): Promise<SalesOrder> {
    for (const [i, line] of lines.entries()) {
      const quantity = stock?.[i] ?? Number(String(line.quantity_um3pl).replace(',', '.'));
      if (quantity > 0) await receiveStock(world, { id: line.article_id, code: '' }, quantity, world.warehouses[0], line.um3pl);
    }
    return moveThrough(world, (await createSalesOrder(world, lines)).id, ['picking', 'picked']);
  }

  it('When part of a picked order ships with its tracking, Then it answers 201 with the shipment, stock and reservation fall by what shipped, the lines and the order show it, and the events come in order', async () => {
    const a = await freshArticle(world, world.client.id);
    const kg = await freshArticle(world, world.client.id, 'KG');
    const order = await pickedOrder([buc(a, 3), kgLine(kg, '2,5')], [10, 4]);
    const since = await lastEventId();
    const body = {
      carrier: 'DHL', service: 'Express 12:00', tracking_number: 'JD0146', tracking_url: 'https://www.dhl.com/track?id=JD0146',
      shipped_at: '2026-01-05T08:30:00+02:00', internal_code: 'DN-1',
      items: [{ so_item_id: order.items[0]!.id, quantity_um3pl: 2 }, { so_item_id: order.items[1]!.id, quantity_um3pl: '1,5' }],
    };

    const res = await world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send(body).expect(201);
    const shipment: Shipment = res.body.data;
    expect(shipment).to.have.all.keys(SHIPMENT_FIELDS);
    expectId(shipment.id);
    expect(shipment).to.deep.include({
      sales_order_id: order.id, client_3pl_id: world.client.id, carrier: 'DHL', service: 'Express 12:00', tracking_number: 'JD0146',
      tracking_url: 'https://www.dhl.com/track?id=JD0146', shipped_at: '2026-01-05T06:30:00.000000Z', internal_code: 'DN-1',
    });
    expectApiTime(shipment.created_at);
    expect(shipment.updated_at).to.equal(shipment.created_at);
    expect(shipment.items.map(({ id, ...line }) => (expectId(id), line))).to.deep.equal([
      { so_item_id: order.items[0]!.id, article_id: a.id, article_code: a.code, um3pl: 'BUC', quantity_um3pl: 2, lots: [] },
      { so_item_id: order.items[1]!.id, article_id: kg.id, article_code: kg.code, um3pl: 'KG', quantity_um3pl: 1.5, lots: [] },
    ]);

    const after = await getOrder(order.id);
    expect(after.status).to.equal('partially_delivered');
    expect(after.items.map((i) => [i.quantity_um3pl, i.delivered_quantity_um3pl])).to.deep.equal([[3, 2], [2.5, 1.5]]);
    expect(after.shipments).to.deep.equal([{ id: shipment.id, carrier: 'DHL', tracking_number: 'JD0146', tracking_url: 'https://www.dhl.com/track?id=JD0146', shipped_at: shipment.shipped_at }]);
    expect(after.status_history.map((e) => [e.status, e.user?.id])).to.deep.equal([
      ['new', world.users.operator.id], ['picking', world.users.operator.id], ['picked', world.users.operator.id], ['partially_delivered', world.users.operator.id],
    ]);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 8, reserved: 1, available: 7, backordered: 0 });
    expect(await levels(world, kg.id)).to.deep.equal({ quantity: 2.5, reserved: 1, available: 1.5, backordered: 0 });

    const movement = { company_id: world.client.id, warehouse_id: world.warehouses[0], stock_type: 'STOC_OK', cause: 'shipment', document_kind: 'shipment', document_id: shipment.id, user_id: world.users.operator.id };
    expect(await movementsOf(h.db, 'shipment', shipment.id)).to.deep.equal([{ ...movement, article_id: a.id, delta: -2000 }, { ...movement, article_id: kg.id, delta: -1500 }]);
    const document = { type: 'shipment', id: shipment.id };
    expect(await eventsSince(since)).to.deep.equal([
      ['stock.changed', { ...(await stockRow(world, a.id)), delta: -2, cause: 'shipment', document }],
      ['stock.changed', { ...(await stockRow(world, kg.id)), delta: -1.5, cause: 'shipment', document }],
      ['shipment.created', shipment],
      ['sales_order.status_changed', after],
    ]);
    expect(await ledgerMismatches(h.db)).to.deep.equal([]);
  });

  it('When a second partial shipment leaves the order partially delivered, Then sales_order.updated carries it; a third without items ships exactly what is left and delivers it', async () => {
    const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    const order = await pickedOrder([buc(a, 3), buc(b, 2)]);
    const first = await ship(world, order, [[0, 1]]);
    let since = await lastEventId();
    const second = await ship(world, order, [[0, 1]], { carrier: 'UPS' });
    const middle = await getOrder(order.id);
    expect(middle.status).to.equal('partially_delivered');
    expect((await eventsSince(since)).map(([type]) => type)).to.deep.equal(['stock.changed', 'shipment.created', 'sales_order.updated']);
    expect((await eventsSince(since)).at(-1)).to.deep.equal(['sales_order.updated', middle]);
    expect(middle.status_history.map((e) => e.status)).to.deep.equal(['new', 'picking', 'picked', 'partially_delivered']);

    since = await lastEventId();
    const rest = await ship(world, order);
    expect(rest.items.map((i) => [i.so_item_id, i.quantity_um3pl])).to.deep.equal([[order.items[0]!.id, 1], [order.items[1]!.id, 2]]);
    expect(rest).to.deep.include({ carrier: null, service: null, tracking_number: null, tracking_url: null, internal_code: null });
    expectApiTime(rest.shipped_at, 60_000);
    const done = await getOrder(order.id);
    expect(done.status).to.equal('delivered');
    expect(done.items.map((i) => i.delivered_quantity_um3pl)).to.deep.equal([3, 2]);
    expect(done.shipments.map((s) => s.id)).to.deep.equal([first.id, second.id, rest.id]);
    expect((await eventsSince(since)).map(([type]) => type)).to.deep.equal(['stock.changed', 'stock.changed', 'shipment.created', 'sales_order.status_changed']);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
    expect(await levels(world, b.id)).to.deep.equal({ quantity: 0, reserved: 0, available: 0, backordered: 0 });
  });

  it('When a picking order ships whole in one shipment, Then it is delivered at once', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 2);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2)])).id, ['picking']);
    await ship(world, order, [[0, 2]]);
    const done = await getOrder(order.id);
    expect(done.status_history.map((e) => e.status)).to.deep.equal(['new', 'picking', 'delivered']);
  });

  it('When the same Idempotency-Key is sent again, Then the stored shipment is answered again and nothing ships twice', async () => {
    const a = await freshArticle(world, world.client.id);
    const order = await pickedOrder([buc(a, 4)], [10]);
    const send = () => world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).set('Idempotency-Key', `ship-${order.id}`).send({ items: [{ so_item_id: order.items[0]!.id, quantity_um3pl: 1 }] });
    const first = await send().expect(201);
    const again = await send().expect(201);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect((await getOrder(order.id)).items[0]!.delivered_quantity_um3pl).to.equal(1);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 9, reserved: 3, available: 6, backordered: 0 });
  });
});
