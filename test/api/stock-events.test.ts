/**
 * Events that say what happened: `stock.changed` is the stock row with `delta` (the change of the
 * on-hand quantity, 0 for a reservation), `cause` and `document`; a reception correction or header
 * change records `reception.updated`. Every payload matches its schema in the document.
 */
import { expect } from 'chai';
import { checkSchema } from '../helpers/contract-check.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { eventsOf, outboxRows } from '../fixtures/probes.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';
import { receiveStock, stockRow } from '../fixtures/stock.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { feedEnd, readFeed } from '../fixtures/events.js';
import { adjust, countLine, deltaLine } from '../fixtures/stock-adjustments.js';
import { transfer, transferLine } from '../fixtures/stock-transfers.js';

describe('Events that say what happened', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  /** The stock.changed events of one article since the mark, as [cause, delta, document, quantity, reserved]. */
  const stockEvents = async (articleId: number, after = 0) => {
    const events = (await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => e.article_id === articleId).slice(after);
    for (const event of events) checkSchema('StockChange', event);
    return events.map((e) => [e.cause, e.delta, e.document, e.quantity, e.reserved]);
  };

  it('When a sales order reserves, changes its lines, is delivered, and another is cancelled, Then each stock.changed says reservation (delta 0) or delivery, with the order', async () => {
    const a = await freshArticle(world, world.client.id);
    await receiveStock(world, a, 10);
    const mark = (await stockEvents(a.id)).length;
    const order = await createSalesOrder(world, [buc(a, 2)]);
    const so = { type: 'sales_order', id: order.id };
    await world.as('operator').put(`/api/sales-orders/${order.id}`).send({ items: [buc(a, 3)] }).expect(200);
    await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);
    const other = await createSalesOrder(world, [buc(a, 1)]);
    await moveThrough(world, other.id, ['cancelled']);
    expect(await stockEvents(a.id, mark)).to.deep.equal([
      ['reservation', 0, so, 10, 2],
      // The change of lines releases 2 and reserves 3 in one write: one event, the row after it.
      ['reservation', 0, so, 10, 3],
      ['delivery', -3, so, 7, 0],
      ['reservation', 0, { type: 'sales_order', id: other.id }, 7, 1],
      ['reservation', 0, { type: 'sales_order', id: other.id }, 7, 0],
    ]);
    const last = (await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => e.article_id === a.id).pop()!;
    const { delta: _delta, cause: _cause, document: _document, ...row } = last;
    expect(row).to.deep.equal(await stockRow(world, a.id));
  });

  it('When goods are received, corrected and returned, Then the causes are reception, reception_correction and return with their documents', async () => {
    const a = await freshArticle(world, world.client.id);
    const po = await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 10)]);
    const reception = await receive(world.as('operator'), po.id, world.warehouses[0]!, [[po.items[0]!.id, 6]]);
    await world.as('operator').put(`/api/receptions/${reception.id}`).send({ items: [{ id: reception.items[0]!.id, quantity_um3pl: 4 }] }).expect(200);
    const ret = await world.as('operator').post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], items: [buc(a, 1)] }).expect(201);
    const doc = { type: 'reception', id: reception.id };
    expect(await stockEvents(a.id)).to.deep.equal([
      ['reception', 6, doc, 6, 0],
      ['reception_correction', -2, doc, 4, 0],
      ['return', 1, { type: 'return', id: ret.body.data.id }, 5, 0],
    ]);
  });

  it('When a document has several lines of one balance (an order of three lines of one article, a reception of two), Then it records one stock.changed per balance: the row after all of them and their deltas summed', async () => {
    const [a, b] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    const po = await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 10), buc(a, 10), buc(b, 10)]);
    const reception = await receive(world.as('operator'), po.id, world.warehouses[0]!, [[po.items[0]!.id, 4], [po.items[1]!.id, 6], [po.items[2]!.id, 3]]);
    const received = { type: 'reception', id: reception.id };
    expect(await stockEvents(a.id), 'the reception\'s two lines of a').to.deep.equal([['reception', 10, received, 10, 0]]);
    expect(await stockEvents(b.id)).to.deep.equal([['reception', 3, received, 3, 0]]);

    const order = await createSalesOrder(world, [buc(a, 1), buc(b, 1), buc(a, 2), buc(a, 3)]);
    const so = { type: 'sales_order', id: order.id };
    await moveThrough(world, order.id, ['picking']);
    const shipment = await ship(world, order);
    const shipped = { type: 'shipment', id: shipment.id };
    expect(await stockEvents(a.id, 1), 'a: one reservation of the three lines, one shipment').to.deep.equal([
      ['reservation', 0, so, 10, 6],
      ['shipment', -6, shipped, 4, 0],
    ]);
    expect(await stockEvents(b.id, 1)).to.deep.equal([
      ['reservation', 0, so, 3, 1],
      ['shipment', -1, shipped, 2, 0],
    ]);
    // The ledger keeps a movement per line.
    const ledger = (await world.as('viewer').get(`/api/stock/movements?article_id=${a.id}`).expect(200)).body.data as Array<{ delta: number; document: unknown }>;
    expect(ledger.filter((m) => JSON.stringify(m.document) === JSON.stringify(shipped)).map((m) => m.delta)).to.have.members([-1, -2, -3]);
  });

  it('When a reception of a lot-tracked article has lines L1, L2, L1, Then it records one stock.changed per lot row, L1\'s with both its lines', async () => {
    const a = await trackedArticle(world);
    const [e1, e2] = [dayFromToday(30), dayFromToday(60)];
    const reception = await receiveLots(world, a, [
      { quantity: 2, lot: 'L1', expiry_date: e1 },
      { quantity: 5, lot: 'L2', expiry_date: e2 },
      { quantity: 3, lot: 'L1', expiry_date: e1 },
    ]);
    const doc = { type: 'reception', id: reception.id };
    const rows = (await outboxRows(h.db, { companyId: world.client.id, type: 'stock.changed' })).filter((e) => e.data.article_id === a.id);
    expect(rows.map(({ data: e }) => [e.lot, e.cause, e.delta, e.quantity, e.document])).to.deep.equal([
      ['L1', 'reception', 5, 5, doc],
      ['L2', 'reception', 5, 5, doc],
    ]);
    // L1's event stands in its first place with the id it was first recorded with: the ids still sort in the written order.
    expect(rows.map((r) => r.event_id)).to.deep.equal(rows.map((r) => r.event_id).sort());
  });

  it('When an order waits on a lot-tracked article and a reception of lines L1, L2, L1 arrives, Then the reservations moved between the lines keep their own events and each row\'s last event shows it as it is', async () => {
    const a = await trackedArticle(world);
    const [e1, e2] = [dayFromToday(30), dayFromToday(60)];
    // An order of 2: the first L1 line takes its reservation (an event of L1 between L1's lines), the second changes none.
    const order = await createSalesOrder(world, [buc(a, 2)]);
    await receiveLots(world, a, [
      { quantity: 2, lot: 'L1', expiry_date: e1 },
      { quantity: 5, lot: 'L2', expiry_date: e2 },
      { quantity: 3, lot: 'L1', expiry_date: e1 },
    ]);
    const events = (await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => e.article_id === a.id);
    for (const event of events) checkSchema('StockChange', event);
    expect(events.filter((e) => e.cause === 'reception').reduce((sum, e) => sum + (e.delta as number), 0)).to.equal(10);
    const rows = (await world.as('viewer').get(`/api/stock?article_id=${a.id}&per_page=200`).expect(200)).body.data as Array<Record<string, unknown>>;
    for (const row of rows) {
      const last = events.filter((e) => e.id === row.id).pop()!;
      const { delta: _delta, cause: _cause, document: _document, ...shown } = last;
      expect(shown, `the last event of ${String(row.lot ?? 'the row without lot')}`).to.deep.equal(row);
    }
    expect(rows.reduce((sum, r) => sum + (r.reserved as number), 0), `order ${order.id} reserved on the lots`).to.equal(2);
  });

  it('When a reception of a lot expiring first fills an order reserved on a hundred lots in one write, Then the lot has one stock.changed with its reception and the reservation after it, the write\'s events share a timestamp and sort by id as the feed orders them, and each row\'s event of the greatest id shows it as GET /api/stock does', async () => {
    // L000's one event (delta 100, reserved 100: never a state where it held 100 and reserved none)
    // and one reservation event (reserved 0) for each lot it takes the order over from: one
    // transaction, one timestamp. Ids random within a millisecond sorted as the feed orders such a
    // write only by chance (dozens of its events share a millisecond).
    const a = await trackedArticle(world);
    const lot = (i: number) => `L${String(i).padStart(3, '0')}`;
    await receiveLots(world, a, Array.from({ length: 100 }, (_, i) => ({ quantity: 1, lot: lot(i + 1), expiry_date: dayFromToday(30 + i) })));
    await createSalesOrder(world, [buc(a, 100)]);
    const viewer = world.as('viewer');
    const mark = await feedEnd(viewer);
    const reception = await receiveLots(world, a, [{ quantity: 100, lot: lot(0), expiry_date: dayFromToday(10) }]);

    const written = (await readFeed(viewer, mark)).filter((e) => e.type !== 'purchase_order.created');
    expect(written.map((e) => e.type)).to.deep.equal([...Array<string>(101).fill('stock.changed'), 'purchase_order.updated', 'reception.created']);
    expect(new Set(written.map((e) => e.timestamp)).size, 'one write, one instant').to.equal(1);
    expect(written.map((e) => e.id), 'the id order is the feed order').to.deep.equal(written.map((e) => e.id).sort());
    const doc = { type: 'reception', id: reception.id };
    const first = written.filter((e) => e.type === 'stock.changed' && e.data.lot === lot(0));
    expect(first.map((e) => [e.data.cause, e.data.delta, e.data.quantity, e.data.reserved, e.data.available, e.data.document])).to.deep.equal([['reception', 100, 100, 100, 0, doc]]);
    expect(first[0]!.data.updated_at).to.equal(first[0]!.timestamp);
    const rows = (await viewer.get(`/api/stock?article_id=${a.id}&per_page=200`).expect(200)).body.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.lot).sort()).to.deep.equal(Array.from({ length: 101 }, (_, i) => lot(i)));
    for (const row of rows) {
      const latest = written.filter((e) => e.type === 'stock.changed' && e.data.id === row.id).reduce((x, y) => (y.id > x.id ? y : x));
      const { delta: _delta, cause: _cause, document: _document, ...shown } = latest.data;
      expect(shown, `the event of ${String(row.lot)} with the greatest id`).to.deep.equal(row);
    }
  });

  it('When a count, an adjustment, a reception (of one lot, or of two that take a reservation over from each other) or a transfer changes lot rows an order reserved on, Then each row has one stock.changed per write, with the reservation after it: a lot row never shows a backorder', async () => {
    const a = await trackedArticle(world);
    const [e1, e2] = [dayFromToday(30), dayFromToday(60)];
    await receiveLots(world, a, [{ quantity: 48, lot: 'A1', expiry_date: e1 }, { quantity: 10, lot: 'B2', expiry_date: e2 }]);
    await createSalesOrder(world, [buc(a, 48)]);
    const [wh1, wh2] = world.warehouses as [number, number];
    const viewer = world.as('viewer');
    // Each write, and the rows (warehouse, lot, expiry date) it changes: on hand, or what they reserve.
    const [d90, late, early] = [dayFromToday(90), dayFromToday(120), dayFromToday(20)];
    const writes: Array<[string, () => Promise<unknown>, string[]]> = [
      ['a count of A1 below what it reserves', () => adjust(world, [{ ...countLine(a, 20), lot: 'A1', expiry_date: e1 }]), [`${wh1} A1 ${e1}`, `${wh1} B2 ${e2}`, `${wh1} - -`]],
      [
        'an adjustment moving B2 to another expiry date',
        () => adjust(world, [{ ...deltaLine(a, -4), lot: 'B2', expiry_date: e2 }, { ...deltaLine(a, 4), lot: 'B2', expiry_date: e1 }]),
        [`${wh1} B2 ${e2}`, `${wh1} B2 ${e1}`, `${wh1} - -`],
      ],
      ['a reception of a later lot that takes the backorder over', () => receiveLots(world, a, [{ quantity: 40, lot: 'C3', expiry_date: d90 }]), [`${wh1} C3 ${d90}`, `${wh1} - -`]],
      [
        'a transfer of A1 to the other warehouse',
        () => transfer(world, [{ ...transferLine(a, 10, [wh1, 'STOC_OK'], [wh2, 'STOC_OK']), lot: 'A1', expiry_date: e1 }]),
        [`${wh1} A1 ${e1}`, `${wh2} A1 ${e1}`, `${wh1} C3 ${d90}`],
      ],
      // An order of more than the lots hold (18 backordered), then two lines of one reception: LATE
      // takes the backorder, then EARLY, expiring sooner, takes it over (two changes of LATE, one event).
      ['an order of 30 that the lots cannot all carry', () => createSalesOrder(world, [buc(a, 30)]), [`${wh1} C3 ${d90}`, `${wh1} - -`]],
      [
        'a reception of two lots, the later expiry first',
        () => receiveLots(world, a, [{ quantity: 20, lot: 'LATE', expiry_date: late }, { quantity: 20, lot: 'EARLY', expiry_date: early }]),
        [`${wh1} LATE ${late}`, `${wh1} EARLY ${early}`, `${wh1} C3 ${d90}`, `${wh1} - -`],
      ],
    ];
    for (const [what, write, changed] of writes) {
      const mark = await feedEnd(viewer);
      await write();
      const events = (await readFeed(viewer, mark)).filter((e) => e.type === 'stock.changed' && e.data.article_id === a.id);
      const rowIds = events.map((e) => e.data.id);
      expect(new Set(rowIds).size, `${what}: one event per row`).to.equal(rowIds.length);
      expect(events.map((e) => `${String(e.data.warehouse_id)} ${String(e.data.lot ?? '-')} ${String(e.data.expiry_date ?? '-')}`), `${what}: the rows it changed`).to.have.members(changed);
      const rows = (await viewer.get(`/api/stock?article_id=${a.id}&per_page=200`).expect(200)).body.data as Array<Record<string, unknown>>;
      for (const event of events) {
        const { delta: _delta, cause: _cause, document: _document, ...shown } = event.data;
        expect(shown, `${what}: the event of ${String(event.data.lot ?? 'the row without lot')} shows the row as it is`).to.deep.equal(rows.find((r) => r.id === event.data.id));
        if (event.data.lot !== null) expect(event.data.backordered, `${what}: lot ${String(event.data.lot)}`).to.equal(0);
      }
    }
  });

  describe('reception.updated', () => {
    it('When a reception is corrected or its header changes, Then reception.updated records it as it then is; an update that changes nothing records none', async () => {
      const a = await freshArticle(world, world.client.id);
      const po = await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 10)]);
      const reception = await receive(world.as('operator'), po.id, world.warehouses[0]!, [[po.items[0]!.id, 6]], { notes: 'Dock 1' });
      const corrected = await world.as('operator').put(`/api/receptions/${reception.id}`).send({ items: [{ id: reception.items[0]!.id, quantity_um3pl: 7 }] }).expect(200);
      const renamed = await world.as('operator').put(`/api/receptions/${reception.id}`).send({ notes: 'Dock 2', internal_code: unique('REC-') }).expect(200);
      const unchanged = await world.as('operator').put(`/api/receptions/${reception.id}`).send({ notes: 'Dock 2', items: [{ id: reception.items[0]!.id, quantity_um3pl: 7 }] }).expect(200);
      expect(unchanged.body.data).to.deep.equal(renamed.body.data);
      const events = await eventsOf(h.db, world.client.id, 'reception.updated', reception.id);
      for (const event of events) checkSchema('Reception', event);
      expect(events).to.deep.equal([corrected.body.data, renamed.body.data]);
      expect(corrected.body.data.items[0].quantity_um3pl).to.equal(7);
    });

    it('When the catalogue is read, Then reception.updated is an event type a subscription can name', async () => {
      const res = await world.as('admin').post('/api/webhooks').send({ url: `http://127.0.0.1:9/${unique()}`, events: ['reception.updated'] }).expect(201);
      expect(res.body.data.events).to.deep.equal(['reception.updated']);
    });
  });
});
