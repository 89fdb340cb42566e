/**
 * Lots and expiry dates on returns (issue 22): a line of an article that tracks them names the lot
 * and expiry date of the goods that come back, a line of one that does not must not; the return
 * keeps them on its lines, raises stock per lot and writes them on the ledger.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { makeArticle, type TestArticle } from '../fixtures/articles.js';
import { dayFromToday, lotMovementsOf, lotRows, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { returnsState } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';

type Line = { article_id: number; um3pl: string; quantity_um3pl: number | string; stock_type?: string; lot?: string; expiry_date?: string };

describe('POST /api/returns', () => {
  let h: Harness;
  let world: World;
  let wh: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    wh = world.warehouses[0]!;
  });

  const line = (article: TestArticle, quantity: number | string, extra: Partial<Line> = {}): Line => ({ article_id: article.id, um3pl: 'BUC', quantity_um3pl: quantity, ...extra });
  const post = (items: Line[]) => world.as('operator').post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: wh, items });

  /** Sends a refused return and checks it is a 422 with exactly `errors` and that nothing was written. */
  async function refused(items: Line[], errors: Record<string, string[]>): Promise<void> {
    const before = await returnsState(h.db, world.client.id);
    const res = await post(items).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await returnsState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When a line of an article that tracks lots and expiry dates names neither, and a line of one that tracks neither names both, Then one 422 names each on its field and nothing is written', async () => {
    const [tracked, plain] = [await trackedArticle(world), await makeArticle(world)];
    await refused([line(tracked, 1), line(plain, 1, { lot: 'L1', expiry_date: dayFromToday(10) }), line(tracked, 0, { lot: 'L1' })], {
      'items.0.lot': [`Article ${tracked.code} tracks lots: give the line's lot.`],
      'items.0.expiry_date': [`Article ${tracked.code} tracks expiry dates: give the line's expiry_date.`],
      'items.1.lot': [`Article ${plain.code} does not track lots: leave the lot out.`],
      'items.1.expiry_date': [`Article ${plain.code} does not track expiry dates: leave the expiry_date out.`],
      'items.2.quantity_um3pl': ['The quantity must be greater than 0.'],
      'items.2.expiry_date': [`Article ${tracked.code} tracks expiry dates: give the line's expiry_date.`],
    });
  });

  it('When goods of two lots come back, one of them damaged, Then 201 keeps each line\'s lot, GET /api/stock shows a row per lot and stock type and the ledger carries them', async () => {
    const tracked = await trackedArticle(world);
    const [e1, e2] = [dayFromToday(15), dayFromToday(200)];
    const res = await post([line(tracked, 2, { lot: 'R-1', expiry_date: e1 }), line(tracked, 3, { lot: 'R-2', expiry_date: e2 }), line(tracked, 1, { lot: 'R-1', expiry_date: e1, stock_type: 'STOC_DEFECT' })]).expect(201);
    expect(res.body.data.items.map((i: Record<string, unknown>) => [i.quantity_um3pl, i.stock_type, i.lot, i.expiry_date])).to.deep.equal([
      [2, 'STOC_OK', 'R-1', e1],
      [3, 'STOC_OK', 'R-2', e2],
      [1, 'STOC_DEFECT', 'R-1', e1],
    ]);
    expect((await world.as('viewer').get(`/api/returns/${res.body.data.id}`).expect(200)).body.data).to.deep.equal(res.body.data);
    expect(await lotRows(world, tracked.id)).to.deep.equal([
      { warehouse_id: wh, stock_type: 'STOC_DEFECT', lot: 'R-1', expiry_date: e1, quantity: 1 },
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'R-1', expiry_date: e1, quantity: 2 },
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'R-2', expiry_date: e2, quantity: 3 },
    ]);
    expect((await lotMovementsOf(h.db, 'return', res.body.data.id)).map((m) => [m.stock_type, m.lot, m.expiry_date, m.delta, m.cause])).to.have.deep.members([
      ['STOC_OK', 'R-1', e1, 2000, 'return'],
      ['STOC_OK', 'R-2', e2, 3000, 'return'],
      ['STOC_DEFECT', 'R-1', e1, 1000, 'return'],
    ]);
  });

  it('When an article tracks expiry dates only, Then its line names the expiry date alone and the row shows lot null', async () => {
    const expiryOnly = await trackedArticle(world, world.client.id, { lot: false, expiry: true });
    const expiry = dayFromToday(5);
    await refused([line(expiryOnly, 1, { lot: 'L1', expiry_date: expiry })], { 'items.0.lot': [`Article ${expiryOnly.code} does not track lots: leave the lot out.`] });
    const res = await post([line(expiryOnly, 1, { expiry_date: expiry })]).expect(201);
    expect(res.body.data.items[0]).to.include({ lot: null, expiry_date: expiry });
    expect(await lotRows(world, expiryOnly.id)).to.deep.equal([{ warehouse_id: wh, stock_type: 'STOC_OK', lot: null, expiry_date: expiry, quantity: 1 }]);
  });

  it('When an article that tracks neither comes back, Then it keeps working with lot and expiry_date null', async () => {
    const plain = await makeArticle(world);
    const res = await post([line(plain, 4)]).expect(201);
    expect(res.body.data.items[0]).to.include({ quantity_um3pl: 4, lot: null, expiry_date: null });
    expect(await lotRows(world, plain.id)).to.deep.equal([{ warehouse_id: wh, stock_type: 'STOC_OK', lot: null, expiry_date: null, quantity: 4 }]);
    expect((await lotMovementsOf(h.db, 'return', res.body.data.id)).map((m) => [m.lot, m.expiry_date, m.delta])).to.deep.equal([['', '', 4000]]);
  });

  it('When a return against a sales order names a lot, Then it must be a lot the order shipped, and at most what shipped of it comes back', async () => {
    const a = await trackedArticle(world);
    const [soon, later] = [dayFromToday(20), dayFromToday(50)];
    await receiveLots(world, a, [{ quantity: 3, lot: 'S1', expiry_date: soon }, { quantity: 5, lot: 'S2', expiry_date: later }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 4)])).id, ['picking']);
    const shipment = await ship(world, order);
    expect(shipment.items[0]!.lots.map((l) => [l.lot, l.quantity_um3pl])).to.deep.equal([['S1', 3], ['S2', 1]]);
    const against = (items: Line[]) => world.as('operator').post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: wh, sales_order_id: order.id, items });
    const refusedAgainst = await against([line(a, 1, { lot: 'NEVER', expiry_date: later }), line(a, 2, { lot: 'S2', expiry_date: later })]).expect(422);
    expect(refusedAgainst.body.errors).to.deep.equal({
      'items.0.lot': [`Lot NEVER of this article did not ship on sales order ${order.id}; name a lot its shipments took.`],
      'items.1.quantity_um3pl': ['At most 1 of lot S2 can still be returned (1 of it delivered).'],
    });
    const ok = await against([line(a, 2, { lot: 'S1', expiry_date: soon })]).expect(201);
    expect(ok.body.data.items[0]).to.include({ lot: 'S1', expiry_date: soon, quantity_um3pl: 2 });
    const again = await against([line(a, 2, { lot: 'S1', expiry_date: soon })]).expect(422);
    expect(again.body.errors['items.0.quantity_um3pl']).to.deep.equal(['At most 1 of lot S1 can still be returned (3 of it delivered).']);
  });

  it('When a return against a sales order gives a shipped lot (or an expiry-only article) another expiry date, Then 422 on expiry_date naming the date it left with, and nothing is written', async () => {
    const a = await trackedArticle(world);
    const expiryOnly = await trackedArticle(world, world.client.id, { lot: false, expiry: true });
    const [soon, far] = [dayFromToday(20), dayFromToday(400)];
    await receiveLots(world, a, [{ quantity: 3, lot: 'X1', expiry_date: soon }]);
    await receiveLots(world, expiryOnly, [{ quantity: 3, expiry_date: soon }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2), buc(expiryOnly, 2)])).id, ['picking']);
    await ship(world, order);
    const body = (items: Line[]) => ({ partner_id: world.partners.client, warehouse_id: wh, sales_order_id: order.id, items });
    const before = await returnsState(h.db, world.client.id);
    const res = await world.as('operator').post('/api/returns').send(body([line(a, 1, { lot: 'X1', expiry_date: far }), line(expiryOnly, 1, { expiry_date: far })])).expect(422);
    expect(res.body.errors).to.deep.equal({
      'items.0.expiry_date': [`Lot X1 of article ${a.code} shipped on sales order ${order.id} with the expiry date ${soon}; give the expiry date it left with.`],
      'items.1.expiry_date': [`Article ${expiryOnly.code} shipped on sales order ${order.id} with the expiry date ${soon}; give the expiry date it left with.`],
    });
    expect(await returnsState(h.db, world.client.id)).to.deep.equal(before);
    await world.as('operator').post('/api/returns').send(body([line(a, 1, { lot: 'X1', expiry_date: soon }), line(expiryOnly, 1, { expiry_date: soon })])).expect(201);
  });

  it('When a return against a sales order gives more under an expiry date than shipped with that date, Then 422 on the quantity naming what is left of that date; lines and returns count together', async () => {
    const expiryOnly = await trackedArticle(world, world.client.id, { lot: false, expiry: true });
    const lotted = await trackedArticle(world);
    const [soon, later] = [dayFromToday(30), dayFromToday(120)];
    await receiveLots(world, expiryOnly, [{ quantity: 10, expiry_date: soon }, { quantity: 10, expiry_date: later }]);
    await receiveLots(world, lotted, [{ quantity: 5, lot: 'DUP', expiry_date: soon }, { quantity: 5, lot: 'DUP', expiry_date: later }]);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(expiryOnly, 12), buc(lotted, 6)])).id, ['picking']);
    const shipped = await ship(world, order);
    expect(shipped.items.map((i) => i.lots.map((l) => [l.lot, l.expiry_date, l.quantity_um3pl]))).to.deep.equal([
      [[null, soon, 10], [null, later, 2]],
      [['DUP', soon, 5], ['DUP', later, 1]],
    ]);
    const against = (items: Line[]) => world.as('operator').post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: wh, sales_order_id: order.id, items });
    const before = await returnsState(h.db, world.client.id);
    const res = await against([line(expiryOnly, 3, { expiry_date: later }), line(lotted, 6, { lot: 'DUP', expiry_date: later })]).expect(422);
    expect(res.body.errors).to.deep.equal({
      'items.0.quantity_um3pl': [`At most 2 of article ${expiryOnly.code} with the expiry date ${later} can still be returned (2 of it delivered with that date).`],
      'items.1.quantity_um3pl': [`At most 1 of lot DUP of article ${lotted.code} with the expiry date ${later} can still be returned (1 of it delivered with that date).`],
    });
    expect(await returnsState(h.db, world.client.id)).to.deep.equal(before);
    await against([line(expiryOnly, 1, { expiry_date: later }), line(expiryOnly, 1, { expiry_date: soon }), line(lotted, 1, { lot: 'DUP', expiry_date: later })]).expect(201);
    const split = await against([line(expiryOnly, 1, { expiry_date: later }), line(expiryOnly, 1, { expiry_date: later })]).expect(422);
    expect(split.body.errors).to.deep.equal({
      'items.1.quantity_um3pl': [`At most 0 of article ${expiryOnly.code} with the expiry date ${later} can still be returned (2 of it delivered with that date).`],
    });
    await against([line(expiryOnly, 1, { expiry_date: later }), line(lotted, 5, { lot: 'DUP', expiry_date: soon })]).expect(201);
  });
});
