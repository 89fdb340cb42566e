/**
 * Lots and expiry dates on stock transfers (issue 22): a line of an article that tracks them names
 * the lot and expiry date that move, and the stock keeps them where it goes: in another warehouse,
 * in another stock type, or both.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { makeArticle } from '../fixtures/articles.js';
import { dayFromToday, lotMovementsOf, lotRows, twoLots } from '../fixtures/lots.js';
import { inventoryState } from '../fixtures/probes.js';
import { buc, createSalesOrder } from '../fixtures/sales-orders.js';
import { adjust, deltaLine } from '../fixtures/stock-adjustments.js';
import { transfer, transferLine, type TransferLine } from '../fixtures/stock-transfers.js';

/** The line with the lot and expiry date given (each left out when undefined). */
const inLot = (line: TransferLine, lot?: string, expiry?: string): TransferLine => ({ ...line, ...(lot !== undefined ? { lot } : {}), ...(expiry !== undefined ? { expiry_date: expiry } : {}) });

describe('POST /api/stock/transfers', () => {
  let h: Harness;
  let world: World;
  let w1: number;
  let w2: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    [w1, w2] = world.warehouses as [number, number];
  });

  const post = (items: TransferLine[]) => world.as('operator').post('/api/stock/transfers').send({ items });

  /** Sends a refused transfer and checks it is a 422 on exactly the fields of `errors` (with their messages where given), and that nothing was written. */
  async function refused(items: TransferLine[], errors: Record<string, string[] | undefined>): Promise<void> {
    const before = await inventoryState(h.db, world.client.id);
    const res = await post(items).expect(422);
    expect(Object.keys(res.body.errors).sort()).to.deep.equal(Object.keys(errors).sort());
    for (const [field, messages] of Object.entries(errors)) if (messages) expect(res.body.errors[field], field).to.deep.equal(messages);
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When a line of a tracked article names no lot and a line of an untracked article names one, Then one 422 names each on its field and nothing is written', async () => {
    const { article } = await twoLots(world);
    const plain = await makeArticle(world);
    await adjust(world, [deltaLine(plain, 5)], { reason: 'found' });
    await refused([transferLine(article, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK']), inLot(transferLine(plain, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK']), 'L1', dayFromToday(9))], {
      'items.0.lot': [`Article ${article.code} tracks lots: give the line's lot.`],
      'items.0.expiry_date': [`Article ${article.code} tracks expiry dates: give the line's expiry_date.`],
      'items.1.lot': [`Article ${plain.code} does not track lots: leave the lot out.`],
      'items.1.expiry_date': [`Article ${plain.code} does not track expiry dates: leave the expiry_date out.`],
    });
  });

  it('When lot L1 moves from warehouse A to B and lot L2 to quarantine, Then each keeps its lot and expiry date where it goes, the other lot is untouched and the ledger carries the lots', async () => {
    const { article, e1, e2 } = await twoLots(world);
    const made = await transfer(world, [inLot(transferLine(article, 4, [w1, 'STOC_OK'], [w2, 'STOC_OK']), 'L1', e1), inLot(transferLine(article, 3, [w1, 'STOC_OK'], [w1, 'STOC_QUARANTINE']), 'L2', e2)]);
    expect(made.items.map((i) => [i.quantity_um3pl, i.lot, i.expiry_date, i.from, i.to])).to.deep.equal([
      [4, 'L1', e1, { warehouse_id: w1, stock_type: 'STOC_OK' }, { warehouse_id: w2, stock_type: 'STOC_OK' }],
      [3, 'L2', e2, { warehouse_id: w1, stock_type: 'STOC_OK' }, { warehouse_id: w1, stock_type: 'STOC_QUARANTINE' }],
    ]);
    expect((await world.as('viewer').get(`/api/stock/transfers/${made.id}`).expect(200)).body.data).to.deep.equal(made);
    const rows = await lotRows(world, article.id);
    expect(rows).to.have.deep.members([
      { warehouse_id: w1, stock_type: 'STOC_OK', lot: 'L1', expiry_date: e1, quantity: 6 },
      { warehouse_id: w1, stock_type: 'STOC_OK', lot: 'L2', expiry_date: e2, quantity: 7 },
      { warehouse_id: w1, stock_type: 'STOC_QUARANTINE', lot: 'L2', expiry_date: e2, quantity: 3 },
      { warehouse_id: w2, stock_type: 'STOC_OK', lot: 'L1', expiry_date: e1, quantity: 4 },
    ]);
    expect(rows).to.have.length(4);
    expect((await lotMovementsOf(h.db, 'transfer', made.id)).map((m) => [m.warehouse_id, m.stock_type, m.lot, m.expiry_date, m.delta, m.cause])).to.have.deep.members([
      [w1, 'STOC_OK', 'L1', e1, -4000, 'transfer'],
      [w2, 'STOC_OK', 'L1', e1, 4000, 'transfer'],
      [w1, 'STOC_OK', 'L2', e2, -3000, 'transfer'],
      [w1, 'STOC_QUARANTINE', 'L2', e2, 3000, 'transfer'],
    ]);
  });

  it('When a line moves more of a lot than that lot holds, Then 422 on its quantity naming the lot and its figures, though the article has enough in other lots, and nothing moves', async () => {
    const { article, e1 } = await twoLots(world);
    await refused([inLot(transferLine(article, 11, [w1, 'STOC_OK'], [w2, 'STOC_OK']), 'L1', e1)], {
      'items.0.quantity_um3pl': [`Not enough available STOC_OK stock of article ${article.code} (lot L1, expiring ${e1}) in warehouse ${w1}: 10 on hand, 0 reserved by open sales orders, 10 available, 11 to move.`],
    });
  });

  it('When an open order reserves 15 of L1 and L2 (10 each), Then a lot moves only as far as the other lot can carry its reservation, and keeps its lot where it goes', async () => {
    const { article, e1 } = await twoLots(world);
    await createSalesOrder(world, [buc(article, 15)]);
    await refused([inLot(transferLine(article, 6, [w1, 'STOC_OK'], [w2, 'STOC_OK']), 'L1', e1)], { 'items.0.quantity_um3pl': undefined });
    await transfer(world, [inLot(transferLine(article, 5, [w1, 'STOC_OK'], [w2, 'STOC_OK']), 'L1', e1)]);
    const rows = (await world.as('viewer').get(`/api/stock?article_id=${article.id}`).expect(200)).body.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.warehouse_id, r.lot, r.quantity, r.reserved]).sort()).to.deep.equal(
      [
        [w1, 'L1', 5, 5],
        [w1, 'L2', 10, 10],
        [w2, 'L1', 5, 0],
      ].sort(),
    );
  });

  it('When an expired lot (available 0, reserved by nothing) moves to quarantine, Then all it holds moves and it stays expired there', async () => {
    const { article, e1 } = await twoLots(world);
    const expired = dayFromToday(-2);
    await adjust(world, [{ ...deltaLine(article, 7), lot: 'OLD', expiry_date: expired }], { reason: 'found' });
    await transfer(world, [inLot(transferLine(article, 7, [w1, 'STOC_OK'], [w1, 'STOC_QUARANTINE']), 'OLD', expired)]);
    const rows = (await world.as('viewer').get(`/api/stock?article_id=${article.id}&lot=OLD`).expect(200)).body.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.stock_type, r.expiry_date, r.quantity, r.available])).to.deep.equal([
      ['STOC_OK', expired, 0, 0],
      ['STOC_QUARANTINE', expired, 7, 0],
    ]);
    expect((await lotRows(world, article.id)).filter((r) => r.lot === 'L1')).to.deep.equal([{ warehouse_id: w1, stock_type: 'STOC_OK', lot: 'L1', expiry_date: e1, quantity: 10 }]);
  });

  it('When a line names a lot the warehouse does not hold, Then 422 on its quantity and nothing moves', async () => {
    const { article, e1 } = await twoLots(world);
    await refused([inLot(transferLine(article, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK']), 'NOPE', e1)], {
      'items.0.quantity_um3pl': [`Not enough available STOC_OK stock of article ${article.code} (lot NOPE, expiring ${e1}) in warehouse ${w1}: 0 on hand, 0 reserved by open sales orders, 0 available, 1 to move.`],
    });
  });

  it('When an article that tracks neither is transferred, Then it keeps working with lot and expiry_date null', async () => {
    const plain = await makeArticle(world);
    await adjust(world, [deltaLine(plain, 5)], { reason: 'found' });
    const made = await transfer(world, [transferLine(plain, 2, [w1, 'STOC_OK'], [w2, 'STOC_OK'])]);
    expect(made.items[0]).to.include({ lot: null, expiry_date: null, quantity_um3pl: 2 });
    expect(await lotRows(world, plain.id)).to.deep.equal([
      { warehouse_id: w1, stock_type: 'STOC_OK', lot: null, expiry_date: null, quantity: 3 },
      { warehouse_id: w2, stock_type: 'STOC_OK', lot: null, expiry_date: null, quantity: 2 },
    ]);
    expect((await lotMovementsOf(h.db, 'transfer', made.id)).map((m) => [m.warehouse_id, m.lot, m.expiry_date, m.delta])).to.have.deep.members([
      [w1, '', '', -2000],
      [w2, '', '', 2000],
    ]);
  });
});
