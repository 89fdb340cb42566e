/**
 * POST /api/stock/transfers: stock moved between stock types, between the provider's warehouses,
 * or both, all lines or none, two movements per line (cause `transfer`), only what is available
 * at the source (on hand less what open sales orders reserve there); and the reads of transfers.
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, kgArticle } from '../fixtures/articles.js';
import { eventsOf, inventoryState, movementsOf } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { adjust, countLine, deltaLine } from '../fixtures/stock-adjustments.js';
import { MAX_BALANCE } from '../../src/kernel/quantity.js';
import { transfer, transferLine, type TransferLine } from '../fixtures/stock-transfers.js';
import { levels, receiveStock } from '../fixtures/stock.js';

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

  const post = (items: TransferLine[], extra: Record<string, unknown> = {}) => world.as('operator').post('/api/stock/transfers').send({ items, ...extra });

  it('When quarantined stock is released to sellable and sellable stock moves to the other warehouse, Then 201, both pairs of balances move and every line is two movements', async () => {
    const [a, b] = [await freshArticle(world), await freshArticle(world)];
    await adjust(world, [deltaLine(a, 10, 'STOC_QUARANTINE')], { reason: 'found' });
    await receiveStock(world, b, 8);
    const res = await post([transferLine(a, 6, [w1, 'STOC_QUARANTINE'], [w1, 'STOC_OK']), transferLine(b, 5, [w1, 'STOC_OK'], [w2, 'STOC_DEFECT'])], {
      note: 'Inspection passed',
      internal_code: unique('TRF-'),
    }).expect(201);
    const made = res.body.data;
    expect(made).to.include({ client_3pl_id: world.client.id, note: 'Inspection passed' });
    expect(made.items.map((i: Record<string, unknown>) => [i.article_id, i.quantity_um3pl, i.from, i.to])).to.deep.equal([
      [a.id, 6, { warehouse_id: w1, stock_type: 'STOC_QUARANTINE' }, { warehouse_id: w1, stock_type: 'STOC_OK' }],
      [b.id, 5, { warehouse_id: w1, stock_type: 'STOC_OK' }, { warehouse_id: w2, stock_type: 'STOC_DEFECT' }],
    ]);
    expect((await levels(world, a.id, w1, 'STOC_QUARANTINE')).quantity).to.equal(4);
    expect((await levels(world, a.id, w1, 'STOC_OK')).quantity).to.equal(6);
    expect((await levels(world, b.id, w1, 'STOC_OK')).quantity).to.equal(3);
    expect((await levels(world, b.id, w2, 'STOC_DEFECT')).quantity).to.equal(5);
    const movements = await movementsOf(h.db, 'transfer', made.id);
    expect(movements.map((m) => [m.article_id, m.warehouse_id, m.stock_type, m.delta, m.cause])).to.have.deep.members([
      [a.id, w1, 'STOC_QUARANTINE', -6000, 'transfer'],
      [a.id, w1, 'STOC_OK', 6000, 'transfer'],
      [b.id, w1, 'STOC_OK', -5000, 'transfer'],
      [b.id, w2, 'STOC_DEFECT', 5000, 'transfer'],
    ]);
    const changed = (await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => e.cause === 'transfer' && (e.document as { id: number }).id === made.id);
    expect(changed.map((e) => [e.article_id, e.warehouse_id, e.stock_type, e.delta, e.quantity])).to.have.deep.members([
      [a.id, w1, 'STOC_QUARANTINE', -6, 4],
      [a.id, w1, 'STOC_OK', 6, 6],
      [b.id, w1, 'STOC_OK', -5, 3],
      [b.id, w2, 'STOC_DEFECT', 5, 5],
    ]);
    expect(await eventsOf(h.db, world.client.id, 'stock.transferred', made.id)).to.deep.equal([made]);
  });

  it('When the destination already holds the most a balance may (10^12), Then a 422 on the quantity says so, and the message does not call the source short', async () => {
    const a = await freshArticle(world);
    await adjust(world, [countLine(a, MAX_BALANCE, 'STOC_QUARANTINE'), countLine(a, 5)], { reason: 'count' });
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([transferLine(a, 5, [w1, 'STOC_OK'], [w1, 'STOC_QUARANTINE'])]).expect(422);
    expect(res.body).to.deep.equal({
      message: 'The transfer cannot be made; nothing was moved.',
      errors: {
        'items.0.quantity_um3pl': [`Moving 5 would take the STOC_QUARANTINE stock of article ${a.code} in warehouse ${w1} above the most a stock balance holds on hand, ${MAX_BALANCE}.`],
      },
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When open sales orders reserve part of the source, Then only the available rest can move: more is a 422 naming on hand, reserved and available, and nothing moves', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 10);
    await moveThrough(world, (await createSalesOrder(world, [buc(a, 7)])).id, ['picking']);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([transferLine(a, 4, [w1, 'STOC_OK'], [w2, 'STOC_OK'])]).expect(422);
    expect(res.body).to.deep.equal({
      message: 'The transfer cannot be made; nothing was moved.',
      errors: {
        'items.0.quantity_um3pl': [`Not enough available STOC_OK stock of article ${a.code} in warehouse ${w1}: 10 on hand, 7 reserved by open sales orders, 3 available, 4 to move.`],
      },
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
    await post([transferLine(a, 3, [w1, 'STOC_OK'], [w2, 'STOC_OK'])]).expect(201);
    expect(await levels(world, a.id, w1)).to.deep.equal({ quantity: 7, reserved: 7, available: 0, backordered: 0 });
  });

  it('When one line of several lacks stock, Then 422 on that line and none of the lines moves', async () => {
    const [a, b] = [await freshArticle(world), await freshArticle(world)];
    await receiveStock(world, a, 5);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([transferLine(a, 5, [w1, 'STOC_OK'], [w2, 'STOC_OK']), transferLine(b, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK'])]).expect(422);
    expect(Object.keys(res.body.errors)).to.deep.equal(['items.1.quantity_um3pl']);
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When lines pass stock along (A to B, then B to C) within one transfer, Then the net of each balance decides, and no movement shows a balance below zero', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 4);
    const made = await transfer(world, [transferLine(a, 4, [w1, 'STOC_DEFECT'], [w1, 'STOC_QUARANTINE']), transferLine(a, 4, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]);
    expect((await levels(world, a.id, w1, 'STOC_OK')).quantity).to.equal(0);
    expect((await levels(world, a.id, w1, 'STOC_DEFECT')).quantity).to.equal(0);
    expect((await levels(world, a.id, w1, 'STOC_QUARANTINE')).quantity).to.equal(4);
    const after = await h.db('stock_movements').where({ document_kind: 'transfer', document_id: made.id }).pluck('quantity_after');
    expect(after.map(Number).every((q) => q >= 0)).to.equal(true);
    const defect = (await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => e.article_id === a.id && e.stock_type === 'STOC_DEFECT');
    expect(defect, 'a balance that ends where it started records no stock.changed').to.deep.equal([]);
    // Its movements stand at one instant: stock as of a time sees the transfer whole or not at all.
    const times = await h.db('stock_movements').where({ document_kind: 'transfer', document_id: made.id }).distinct('created_at');
    expect(times).to.have.length(1);
  });

  it('When lines send stock round in a circle (A to B and B to A) that A does not hold, Then 422: what comes back cannot pay for what leaves, and nothing moves', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 1);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([transferLine(a, 500, [w1, 'STOC_OK'], [w2, 'STOC_OK']), transferLine(a, 500, [w2, 'STOC_OK'], [w1, 'STOC_OK'])]).expect(422);
    const round = ' (lines that bring stock back here from where this takes it do not count: it would go round before it was there).';
    expect(res.body.errors).to.deep.equal({
      'items.0.quantity_um3pl': [`Not enough available STOC_OK stock of article ${a.code} in warehouse ${w1}: 1 on hand, 0 reserved by open sales orders, 1 available, 500 to move${round}`],
      'items.1.quantity_um3pl': [`Not enough available STOC_OK stock of article ${a.code} in warehouse ${w2}: 0 on hand, 0 reserved by open sales orders, 0 available, 500 to move${round}`],
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When lines swap stock between two places that each hold what leaves them, Then 201, each ends with what it got, and no movement shows more than was there', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 5);
    await transfer(world, [transferLine(a, 2, [w1, 'STOC_OK'], [w1, 'STOC_QUARANTINE'])]);
    const made = await transfer(world, [transferLine(a, 3, [w1, 'STOC_OK'], [w1, 'STOC_QUARANTINE']), transferLine(a, 2, [w1, 'STOC_QUARANTINE'], [w1, 'STOC_OK'])]);
    expect((await levels(world, a.id, w1, 'STOC_OK')).quantity).to.equal(2);
    expect((await levels(world, a.id, w1, 'STOC_QUARANTINE')).quantity).to.equal(3);
    const rows = await h.db('stock_movements').where({ document_kind: 'transfer', document_id: made.id }).orderBy('id').select('stock_type', 'delta', 'quantity_after');
    // Each place gives first, then gets: never above what it held (3 and 2) on the way.
    expect(rows.map((r: { stock_type: string; delta: number | string; quantity_after: number | string }) => [r.stock_type, Number(r.delta) / 1000, Number(r.quantity_after) / 1000])).to.deep.equal([
      ['STOC_OK', -3, 0],
      ['STOC_OK', 2, 2],
      ['STOC_QUARANTINE', -2, 0],
      ['STOC_QUARANTINE', 3, 3],
    ]);
  });

  it('When lines break the rules, Then one 422 names every problem on its field and nothing is written', async () => {
    const [a, kg] = [await freshArticle(world), await kgArticle(world)];
    await receiveStock(world, a, 5);
    const code = unique('TRF-');
    await transfer(world, [transferLine(a, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK'])], { internal_code: code });
    const before = await inventoryState(h.db, world.client.id);
    const res = await post(
      [
        transferLine(a, 1, [w1, 'STOC_OK'], [w1, 'STOC_OK']),
        transferLine(a, 1, [2147483000, 'STOC_OK'], [w2, 'STOC_OK']),
        transferLine(a, 1.5, [w1, 'STOC_OK'], [w2, 'STOC_OK']),
        transferLine(kg, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK']),
        transferLine(world.articles.otherClient, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK']),
      ],
      { internal_code: code },
    ).expect(422);
    expect(res.body.errors).to.deep.equal({
      'items.0.to': ['The to place must differ from the from place: another warehouse, another stock type, or both.'],
      'items.1.from.warehouse_id': ['The warehouse_id must be a warehouse of the provider.'],
      'items.2.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'],
      'items.3.um3pl': ["The unit must be the article's unit, KG."],
      'items.4.article_id': [`Article ${world.articles.otherClient.id} is not an article of this client.`],
      internal_code: ['The internal_code has already been taken for this client.'],
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When the article is deactivated, Then its stock cannot be transferred (422 on article_id)', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 2);
    await world.as('operator').put(`/api/articles/${a.id}`).send({ active: false }).expect(200);
    const res = await post([transferLine(a, 1, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]).expect(422);
    expect(res.body.errors).to.deep.equal({ 'items.0.article_id': [`Article ${a.code} is deactivated; it cannot go on new lines.`] });
  });

  it('When X-Company-Id is the provider, Then client_3pl_id names the client (required)', async () => {
    const a = world.articles.client;
    await adjust(world, [deltaLine(a, 1)], { reason: 'found' });
    const agent = world.as('providerAdmin');
    const missing = await agent.post('/api/stock/transfers').send({ items: [transferLine(a, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK'])] }).expect(422);
    expect(missing.body.errors).to.deep.include({ client_3pl_id: ['The client_3pl_id field is required when X-Company-Id is a provider.'] });
    const made = await agent.post('/api/stock/transfers').send({ client_3pl_id: world.client.id, items: [transferLine(a, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK'])] }).expect(201);
    expect(made.body.data.client_3pl_id).to.equal(world.client.id);
  });
});

describe('GET /api/stock/transfers and GET /api/stock/transfers/{id}', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When transfers exist, Then the list shows the newest first and filters by a warehouse either side, code and time; one is read by id', async () => {
    const [w1, w2] = world.warehouses as [number, number];
    const a = await freshArticle(world);
    await receiveStock(world, a, 5);
    const within = await transfer(world, [transferLine(a, 1, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]);
    const code = unique('TRF-');
    const across = await transfer(world, [transferLine(a, 1, [w1, 'STOC_OK'], [w2, 'STOC_OK'])], { internal_code: code });
    const viewer = world.as('viewer');
    const ids = async (query = '') => (await viewer.get(`/api/stock/transfers?${query}`).expect(200)).body.data.map((d: { id: number }) => d.id);
    expect(await ids()).to.deep.equal([across.id, within.id]);
    expect(await ids(`warehouse_id=${w2}`)).to.deep.equal([across.id]);
    expect(await ids(`warehouse_id=${w1}`)).to.deep.equal([across.id, within.id]);
    expect(await ids(`internal_code=${code}`)).to.deep.equal([across.id]);
    expect(await ids('updated_since=2999-01-01T00:00:00Z')).to.deep.equal([]);
    expect((await viewer.get(`/api/stock/transfers/${within.id}`).expect(200)).body.data).to.deep.equal(within);
    const missing = await viewer.get('/api/stock/transfers/2147483000').expect(404);
    expect(missing.body.message).to.equal('Stock transfer 2147483000 was not found.');
    await world.as('otherClientAdmin').get(`/api/stock/transfers/${within.id}`).expect(404);
  });
});
