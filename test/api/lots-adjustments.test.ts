/**
 * Lots and expiry dates on stock adjustments (issue 22): the balance of an article that tracks them
 * is one lot and expiry date, so every line of such an article names them, whether it adds, takes
 * away or counts; a line changes only its own lot, and an expired lot can be written off.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { makeArticle } from '../fixtures/articles.js';
import { dayFromToday, lotMovementsOf, lotRows, receiveLots, trackedArticle, twoLots } from '../fixtures/lots.js';
import { inventoryState } from '../fixtures/probes.js';
import { adjust, adjustmentBody, countLine, deltaLine, type AdjustmentLine } from '../fixtures/stock-adjustments.js';

/** The line with the lot and expiry date given (each left out when undefined). */
const inLot = (line: AdjustmentLine, lot?: string, expiry?: string): AdjustmentLine => ({ ...line, ...(lot !== undefined ? { lot } : {}), ...(expiry !== undefined ? { expiry_date: expiry } : {}) });

describe('POST /api/stock/adjustments', () => {
  let h: Harness;
  let world: World;
  let wh: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    wh = world.warehouses[0]!;
  });

  const post = (items: AdjustmentLine[], extra: Record<string, unknown> = {}) => world.as('operator').post('/api/stock/adjustments').send(adjustmentBody(world, items, extra));

  /** Sends a refused adjustment and checks it is a 422 with exactly `errors` and that nothing was written. */
  async function refused(items: AdjustmentLine[], errors: Record<string, string[]>): Promise<void> {
    const before = await inventoryState(h.db, world.client.id);
    const res = await post(items).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When lines of a tracked article add, take away and count without a lot, and a line of an untracked article names one, Then one 422 names each on its field and nothing is written', async () => {
    const { article } = await twoLots(world);
    const plain = await makeArticle(world);
    const lot = `Article ${article.code} tracks lots: give the line's lot.`;
    const expiry = `Article ${article.code} tracks expiry dates: give the line's expiry_date.`;
    await refused([deltaLine(article, 1), deltaLine(article, -1, 'STOC_DEFECT'), inLot(countLine(article, 3, 'STOC_QUARANTINE'), 'L1'), inLot(deltaLine(plain, 1), 'L1', dayFromToday(3))], {
      'items.0.lot': [lot],
      'items.0.expiry_date': [expiry],
      'items.1.lot': [lot],
      'items.1.expiry_date': [expiry],
      'items.2.expiry_date': [expiry],
      'items.3.lot': [`Article ${plain.code} does not track lots: leave the lot out.`],
      'items.3.expiry_date': [`Article ${plain.code} does not track expiry dates: leave the expiry_date out.`],
    });
  });

  it('When one lot is counted, another taken from and a new lot found, Then 201 answers each line with its lot, each row changes alone and the ledger carries the lots', async () => {
    const { article, e1, e2 } = await twoLots(world);
    const e3 = dayFromToday(90);
    const made = await adjust(world, [inLot(countLine(article, 7), 'L1', e1), inLot(deltaLine(article, -2), 'L2', e2), inLot(deltaLine(article, 4), 'L3', e3)], { reason: 'count' });
    expect(made.items.map((i) => [i.lot, i.expiry_date, i.counted_um3pl, i.delta_um3pl, i.quantity_before, i.quantity_after])).to.deep.equal([
      ['L1', e1, 7, -3, 10, 7],
      ['L2', e2, null, -2, 10, 8],
      ['L3', e3, null, 4, 0, 4],
    ]);
    expect((await world.as('viewer').get(`/api/stock/adjustments/${made.id}`).expect(200)).body.data).to.deep.equal(made);
    expect(await lotRows(world, article.id)).to.deep.equal([
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'L1', expiry_date: e1, quantity: 7 },
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'L2', expiry_date: e2, quantity: 8 },
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'L3', expiry_date: e3, quantity: 4 },
    ]);
    expect((await lotMovementsOf(h.db, 'adjustment', made.id)).map((m) => [m.lot, m.expiry_date, m.delta, m.cause])).to.have.deep.members([
      ['L1', e1, -3000, 'adjustment'],
      ['L2', e2, -2000, 'adjustment'],
      ['L3', e3, 4000, 'adjustment'],
    ]);
  });

  it('When counting one lot, Then the other lot of the article is untouched', async () => {
    const { article, e1, e2 } = await twoLots(world);
    await adjust(world, [inLot(countLine(article, 0), 'L2', e2)], { reason: 'count' });
    expect((await lotRows(world, article.id)).map((r) => [r.lot, r.expiry_date, r.quantity])).to.deep.equal([
      ['L1', e1, 10],
      ['L2', e2, 0],
    ]);
  });

  it('When a line takes more from a lot than that lot holds, Then 422 on its delta naming the lot, though the article has enough in other lots', async () => {
    const { article, e1 } = await twoLots(world);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([inLot(deltaLine(article, -11), 'L1', e1)]).expect(422);
    expect(res.body.errors).to.deep.equal({ 'items.0.delta_um3pl': [`Not enough STOC_OK stock of article ${article.code} (lot L1, expiring ${e1}) in warehouse ${wh}: 10 on hand, 11 needed, short by 1.`] });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When two lines adjust the same lot, Then 422 on the later line\'s article_id; lines of two lots of the article are two balances', async () => {
    const { article, e1, e2 } = await twoLots(world);
    await refused([inLot(deltaLine(article, 1), 'L1', e1), inLot(deltaLine(article, -1), 'L1', e1)], {
      'items.1.article_id': [`Line 0 already adjusts the STOC_OK stock of article ${article.code} (lot L1, expiring ${e1}); give each balance one line.`],
    });
    await adjust(world, [inLot(deltaLine(article, 1), 'L1', e1), inLot(deltaLine(article, -1), 'L2', e2)]);
    expect((await lotRows(world, article.id)).map((r) => [r.lot, r.quantity])).to.deep.equal([
      ['L1', 11],
      ['L2', 9],
    ]);
  });

  it('When an expired lot is written off with reason expiry, Then its stock goes to zero', async () => {
    const article = await trackedArticle(world);
    const expired = dayFromToday(-3);
    await receiveLots(world, article, [{ quantity: 5, lot: 'OLD', expiry_date: expired }]);
    expect(await lotRows(world, article.id)).to.deep.equal([{ warehouse_id: wh, stock_type: 'STOC_OK', lot: 'OLD', expiry_date: expired, quantity: 5 }]);
    const made = await adjust(world, [inLot(deltaLine(article, -5), 'OLD', expired)], { reason: 'expiry' });
    expect(made.items[0]).to.include({ lot: 'OLD', expiry_date: expired, delta_um3pl: -5, quantity_after: 0 });
    expect((await lotRows(world, article.id)).map((r) => r.quantity)).to.deep.equal([0]);
  });

  it('When an article that tracks neither is adjusted, Then it keeps working with lot and expiry_date null', async () => {
    const plain = await makeArticle(world);
    const made = await adjust(world, [deltaLine(plain, 3)], { reason: 'found' });
    expect(made.items[0]).to.include({ lot: null, expiry_date: null, delta_um3pl: 3 });
    expect(await lotRows(world, plain.id)).to.deep.equal([{ warehouse_id: wh, stock_type: 'STOC_OK', lot: null, expiry_date: null, quantity: 3 }]);
    expect((await lotMovementsOf(h.db, 'adjustment', made.id)).map((m) => [m.lot, m.expiry_date, m.delta])).to.deep.equal([['', '', 3000]]);
  });
});
