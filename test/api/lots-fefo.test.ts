/**
 * FEFO for articles that track lots or expiry dates: reservations spread over lots earliest expiry
 * first (each row's `reserved` is its share), expired lots are never reserved or shipped, a line may
 * pin a lot, shipments take lots earliest first and list them, and every change (a reception, a
 * cancellation, a shipment) spreads the reservations again.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { buc, createSalesOrder, moveThrough, orderBody, ship, type SalesOrder } from '../fixtures/sales-orders.js';
import type { StockLevel } from '../fixtures/stock.js';
import { eventsOf } from '../fixtures/probes.js';
import { reallocateExpiredLots } from '../../src/components/stock/stock.service.js';

describe('POST /api/sales-orders (lots, FEFO)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  /** The article's rows: `lot expiry quantity/reserved/available/backordered`, FEFO order. */
  const rows = async (article: Article): Promise<string[]> => {
    const res = await world.as('viewer').get(`/api/stock?article_id=${article.id}&per_page=200`).expect(200);
    return (res.body.data as StockLevel[])
      .sort((a, b) => (a.expiry_date ?? '9999').localeCompare(b.expiry_date ?? '9999') || (a.lot ?? '').localeCompare(b.lot ?? ''))
      .map((r) => `${r.lot ?? '-'} ${r.expiry_date ?? '-'} ${r.quantity}/${r.reserved}/${r.available}/${r.backordered}`);
  };
  const soon = dayFromToday(30);
  const later = dayFromToday(90);
  const past = dayFromToday(-1);

  it('When an order of 15 meets L1 (10, expiring first) and L2 (10), Then L1 is reserved 10 and L2 5', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'L2', expiry_date: later }, { quantity: 10, lot: 'L1', expiry_date: soon }]);
    await createSalesOrder(world, [buc(a, 15)]);
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 10/10/0/0`, `L2 ${later} 10/5/5/0`]);
  });

  it('When a lot has expired, Then it shows available 0 and is never reserved; what no lot holds is backordered on the row without lot', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'OLD', expiry_date: past }, { quantity: 4, lot: 'NEW', expiry_date: soon }]);
    await createSalesOrder(world, [buc(a, 6)]);
    expect(await rows(a)).to.deep.equal([`OLD ${past} 10/0/0/0`, `NEW ${soon} 4/4/0/0`, '- - 0/2/0/2']);
  });

  it('When stock of an earlier lot arrives after the order, Then the reservation moves onto it (backorder first, then earliest expiry)', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 5, lot: 'L2', expiry_date: later }]);
    await createSalesOrder(world, [buc(a, 8)]);
    expect(await rows(a)).to.deep.equal([`L2 ${later} 5/5/0/0`, '- - 0/3/0/3']);
    await receiveLots(world, a, [{ quantity: 10, lot: 'L1', expiry_date: soon }]);
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 10/8/2/0`, `L2 ${later} 5/0/5/0`, '- - 0/0/0/0']);
  });

  it('When a line pins the later lot, Then it reserves that lot and the other line takes the earliest around it', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'L1', expiry_date: soon }, { quantity: 10, lot: 'L2', expiry_date: later }]);
    const order = await createSalesOrder(world, [{ ...buc(a, 4), lot: 'L2' }, buc(a, 12)]);
    expect(order.items.map((i) => i.lot)).to.deep.equal(['L2', null]);
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 10/10/0/0`, `L2 ${later} 10/6/4/0`]);
  });

  it('When a line pins a lot whose every row in the order\'s warehouse and stock type has expired, Then 422 on its lot (at create, on an edit of its lines, warehouse or stock type); a lot not yet received, or with a row not expired, may be pinned', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'OLD', expiry_date: past }, { quantity: 3, lot: 'MIX', expiry_date: past }, { quantity: 3, lot: 'MIX', expiry_date: soon }]);
    const expired = `Lot "OLD" of article ${a.code} expired on ${past} in the order's warehouse and stock type: an expired lot is never reserved or shipped. Pin another lot, or leave lot out to take lots earliest expiry first.`;
    const before = await rows(a);
    const refused = await world.as('operator').post('/api/sales-orders').send(orderBody(world, [buc(a, 1), { ...buc(a, 2), lot: 'OLD' }])).expect(422);
    expect(refused.body.errors).to.deep.equal({ 'items.1.lot': [expired] });
    expect(await rows(a)).to.deep.equal(before);
    const order = await createSalesOrder(world, [{ ...buc(a, 2), lot: 'MIX' }, { ...buc(a, 1), lot: 'NOT-YET' }]);
    expect(order.items.map((i) => i.lot)).to.deep.equal(['MIX', 'NOT-YET']);
    const edit = await world.as('operator').put(`/api/sales-orders/${order.id}`).send({ items: [{ ...buc(a, 2), lot: 'OLD' }] }).expect(422);
    expect(edit.body.errors).to.deep.equal({ 'items.0.lot': [expired] });
    // Quarantine holds no row of OLD: there it may still arrive; moved to STOC_OK, it is refused.
    const quarantined = await createSalesOrder(world, [buc(a, 1), { ...buc(a, 1), lot: 'OLD' }], { stock_type: 'STOC_QUARANTINE' });
    const moved = await world.as('operator').put(`/api/sales-orders/${quarantined.id}`).send({ stock_type: 'STOC_OK' }).expect(422);
    expect(moved.body.errors).to.deep.equal({ stock_type: [`Line 1 pins a lot that has expired there. ${expired}`] });
    // The same lines sent again are no change of lines: the move is what is refused.
    const resent = await world.as('operator').put(`/api/sales-orders/${quarantined.id}`).send({ stock_type: 'STOC_OK', items: [buc(a, 1), { ...buc(a, 1), lot: 'OLD' }] }).expect(422);
    expect(resent.body.errors).to.deep.equal(moved.body.errors);
  });

  it('When a line pins a lot of an article that does not track lots, or gives an expiry date, Then 422 names the field', async () => {
    const plain = await freshArticle(world);
    const res = await world
      .as('operator')
      .post('/api/sales-orders')
      .send({ partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], internal_code: 'SO-PIN-BAD', items: [{ ...buc(plain, 1), lot: 'L1' }] })
      .expect(422);
    expect(res.body.errors).to.deep.equal({ 'items.0.lot': [`Article ${plain.code} does not track lots: leave the lot out.`] });
  });

  it('When a shipment takes 15 of L1 (10, earliest) and L2, Then its line lists the lots taken and stock falls on each', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'L2', expiry_date: later }, { quantity: 10, lot: 'L1', expiry_date: soon }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 15)])).id, ['picking']);
    const shipment = await ship(world, order, [[0, 15]], { carrier: 'DHL' });
    expect(shipment.items[0]!.lots).to.deep.equal([
      { lot: 'L1', expiry_date: soon, quantity_um3pl: 10 },
      { lot: 'L2', expiry_date: later, quantity_um3pl: 5 },
    ]);
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 0/0/0/0`, `L2 ${later} 5/0/5/0`]);
    const read = await world.as('viewer').get(`/api/shipments/${shipment.id}`).expect(200);
    expect(read.body.data.items[0].lots).to.deep.equal(shipment.items[0]!.lots);
    const movements = await h.db('stock_movements').where({ article_id: a.id, cause: 'shipment' }).orderBy('id');
    expect(movements.map((m) => [m.lot, Number(m.delta), m.document_id])).to.deep.equal([
      ['L1', -10000, shipment.id],
      ['L2', -5000, shipment.id],
    ]);
  });

  it('When only expired stock is left, Then a shipment is a 422 that says how much can ship, and nothing changes', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'OLD', expiry_date: past }, { quantity: 2, lot: 'NEW', expiry_date: soon }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 5)])).id, ['picking']);
    const before = await rows(a);
    const res = await world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(422);
    expect(res.body.errors.items[0]).to.match(/^Not enough STOC_OK stock of article .* that has not expired: 2 can be shipped .* 5 needed, short by 3\.$/);
    expect(await rows(a)).to.deep.equal(before);
  });

  it('When two unpinned lines of a tracked article together need more than can ship, Then the shortfall gives what could ship before the first line against what both need', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 2, lot: 'L1', expiry_date: soon }, { quantity: 1, lot: 'L2', expiry_date: later }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2), buc(a, 2)])).id, ['picking']);
    const before = await rows(a);
    const res = await world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(422);
    expect(res.body.errors).to.have.all.keys('items');
    expect(res.body.errors.items).to.have.length(1);
    expect(res.body.errors.items[0]).to.match(/^Not enough STOC_OK stock of article .* that has not expired: 3 can be shipped \(.*\), 4 needed by the order's lines, short by 1\.$/);
    expect(await rows(a)).to.deep.equal(before);
  });

  it('When a pinned line ships, Then it takes only its lot, even when another lot expires first', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'L1', expiry_date: soon }, { quantity: 10, lot: 'L2', expiry_date: later }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [{ ...buc(a, 3), lot: 'L2' }])).id, ['picking']);
    const shipment = await ship(world, order);
    expect(shipment.items[0]!.lots).to.deep.equal([{ lot: 'L2', expiry_date: later, quantity_um3pl: 3 }]);
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 10/0/10/0`, `L2 ${later} 7/0/7/0`]);
  });

  it('When an order is cancelled or moved to delivered, Then its reservation leaves every lot, and delivered ships the rest earliest first', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 6, lot: 'L1', expiry_date: soon }, { quantity: 6, lot: 'L2', expiry_date: later }]);
    const cancelled = await createSalesOrder(world, [buc(a, 8)]);
    await moveThrough(world, cancelled.id, ['cancelled']);
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 6/0/6/0`, `L2 ${later} 6/0/6/0`]);
    const delivered: SalesOrder = await moveThrough(world, (await createSalesOrder(world, [buc(a, 8)])).id, ['picking', 'picked', 'delivered']);
    expect(delivered.status).to.equal('delivered');
    expect(await rows(a)).to.deep.equal([`L1 ${soon} 0/0/0/0`, `L2 ${later} 4/0/4/0`]);
    const shipments = await world.as('viewer').get(`/api/shipments?sales_order_id=${delivered.id}`).expect(200);
    expect(shipments.body.data[0].items[0].lots.map((l: { lot: string; quantity_um3pl: number }) => [l.lot, l.quantity_um3pl])).to.deep.equal([
      ['L1', 6],
      ['L2', 2],
    ]);
  });

  it('When stock is filtered by lot and expires_before, Then only those rows answer; a day that does not exist is a 422', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 1, lot: 'F1', expiry_date: soon }, { quantity: 2, lot: 'F2', expiry_date: later }]);
    const byLot = await world.as('viewer').get(`/api/stock?article_id=${a.id}&lot=F2`).expect(200);
    expect(byLot.body.data.map((r: StockLevel) => [r.lot, r.quantity])).to.deep.equal([['F2', 2]]);
    const expiring = await world.as('viewer').get(`/api/stock?article_id=${a.id}&expires_before=${dayFromToday(60)}`).expect(200);
    expect(expiring.body.data.map((r: StockLevel) => r.lot)).to.deep.equal(['F1']);
    const impossible = await world.as('viewer').get(`/api/stock?article_id=${a.id}&expires_before=2027-02-31`).expect(422);
    expect(impossible.body.errors).to.deep.equal({ expires_before: ['The expires_before field must be a date (YYYY-MM-DD) that exists, such as 2027-03-31.'] });
  });

  it('When an article with stock or open lines turns lot tracking on or off, Then 422 on the flag; without either it may', async () => {
    const plain = await freshArticle(world);
    await world.as('providerAdmin', world.client.id).put(`/api/articles/${plain.id}`).send({ lot_tracked: true }).expect(200);
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 1, lot: 'X', expiry_date: soon }]);
    const res = await world.as('providerAdmin', world.client.id).put(`/api/articles/${a.id}`).send({ lot_tracked: false, expiry_tracked: false }).expect(422);
    expect(Object.keys(res.body.errors)).to.deep.equal(['lot_tracked', 'expiry_tracked']);
    expect(res.body.errors.lot_tracked[0]).to.include('cannot change while it has stock or lines on open documents');
  });

  it('When a lot expires after its reservation was made, Then the daily job moves the reservation to a lot that has not expired and records stock.changed', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 10, lot: 'E1', expiry_date: soon }, { quantity: 10, lot: 'E2', expiry_date: later }]);
    await createSalesOrder(world, [buc(a, 4)]);
    expect(await rows(a)).to.deep.equal([`E1 ${soon} 10/4/6/0`, `E2 ${later} 10/0/10/0`]);
    // The days pass: E1's expiry date is now behind us, with its reservation still on it.
    for (const table of ['stock_balances', 'stock_movements']) await h.db(table).where({ article_id: a.id, lot: 'E1' }).update({ expiry_date: past });
    const before = (await eventsOf(h.db, world.client.id, 'stock.changed')).length;
    await reallocateExpiredLots().run(h.db);
    expect(await rows(a)).to.deep.equal([`E1 ${past} 10/0/0/0`, `E2 ${later} 10/4/6/0`]);
    const changed = (await eventsOf(h.db, world.client.id, 'stock.changed')).slice(before);
    expect(changed.map((e) => [e.lot, e.reserved, e.cause, e.document])).to.have.deep.members([
      ['E1', 0, 'reservation', null],
      ['E2', 4, 'reservation', null],
    ]);
  });

  it('When a lot that nothing reserves expires overnight, Then the daily job gives its row the time as updated_at, once, so updated_since finds it at available 0', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 7, lot: 'X1', expiry_date: soon }, { quantity: 3, lot: 'X2', expiry_date: later }]);
    // The days pass: X1 was last changed two days ago and expired yesterday.
    const lastChange = `${dayFromToday(-2)} 10:00:00.000000`;
    await h.db('stock_balances').where({ article_id: a.id, lot: 'X1' }).update({ expiry_date: past, updated_at: lastChange });
    await h.db('stock_movements').where({ article_id: a.id, lot: 'X1' }).update({ expiry_date: past });
    const since = new Date().toISOString();
    const changedSince = async (): Promise<string[]> =>
      ((await world.as('viewer').get(`/api/stock?article_id=${a.id}&updated_since=${encodeURIComponent(since)}`).expect(200)).body.data as StockLevel[]).map((r) => `${r.lot} ${r.available}`);
    expect(await changedSince(), 'nothing written yet').to.deep.equal([]);

    await reallocateExpiredLots().run(h.db);
    expect(await changedSince()).to.deep.equal(['X1 0']);
    const stamped = (await h.db('stock_balances').where({ article_id: a.id, lot: 'X1' }).first()).updated_at as string;
    await reallocateExpiredLots().run(h.db);
    expect((await h.db('stock_balances').where({ article_id: a.id, lot: 'X1' }).first()).updated_at, 'stamped once').to.deep.equal(stamped);
  });

  it('When stock of a tracked article changes, Then stock.changed carries the row with its lot and expiry date', async () => {
    const a = await trackedArticle(world);
    const before = (await eventsOf(h.db, world.client.id, 'stock.changed')).length;
    await receiveLots(world, a, [{ quantity: 3, lot: 'EV1', expiry_date: soon }]);
    const changed = (await eventsOf(h.db, world.client.id, 'stock.changed')).slice(before).filter((e) => e.article_id === a.id);
    expect(changed.map((e) => [e.lot, e.expiry_date, e.delta, e.cause])).to.deep.equal([['EV1', soon, 3, 'reception']]);
  });

  it('When the ledger and stock as of a time are read by lot, Then each answers the rows of that lot only, with its expiry date', async () => {
    const a = await trackedArticle(world);
    await receiveLots(world, a, [{ quantity: 2, lot: 'M1', expiry_date: soon }, { quantity: 5, lot: 'M2', expiry_date: later }]);
    const movements = await world.as('viewer').get(`/api/stock/movements?article_id=${a.id}&lot=M2`).expect(200);
    expect(movements.body.data.map((m: { lot: string; expiry_date: string; delta: number }) => [m.lot, m.expiry_date, m.delta])).to.deep.equal([['M2', later, 5]]);
    const at = new Date(Date.now() + 60_000).toISOString();
    const asOf = await world.as('viewer').get(`/api/stock/as-of?article_id=${a.id}&lot=M1&at=${encodeURIComponent(at)}`).expect(200);
    expect(asOf.body.data.map((r: { lot: string; expiry_date: string; quantity: number }) => [r.lot, r.expiry_date, r.quantity])).to.deep.equal([['M1', soon, 2]]);
  });
});
