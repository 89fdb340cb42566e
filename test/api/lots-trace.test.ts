/**
 * GET /api/lots/trace: one lot of one article from the ledger, grouped by what moved it (receptions,
 * shipments with their sales order and partner, returns, adjustments, transfers), oldest first,
 * with its balances now; another lot of the same article stays out; an article out of scope or
 * without lots is a 422 on article_id; viewers read it.
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { expectApiTime } from '../fixtures/probes.js';
import { createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';
import { adjust } from '../fixtures/stock-adjustments.js';
import { transfer } from '../fixtures/stock-transfers.js';
import type { TestArticle } from '../fixtures/articles.js';

type Entry = { movement_id: number; created_at: string; warehouse_id: number; stock_type: string; expiry_date: string | null; delta: number; document: { type: string; id: number } };

/** An entry as [warehouse, stock type, expiry, delta, document type, document id]. */
const brief = (e: Entry) => [e.warehouse_id, e.stock_type, e.expiry_date, e.delta, e.document.type, e.document.id];

describe('GET /api/lots/trace', () => {
  let h: Harness;
  let world: World;
  let w1: number;
  let w2: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    [w1, w2] = world.warehouses as [number, number];
  });

  const trace = (article: { id: number }, lot: string, actor: Parameters<World['as']>[0] = 'viewer', company?: number) =>
    world.as(actor, company).get(`/api/lots/trace?article_id=${article.id}&lot=${encodeURIComponent(lot)}`);

  /** A line of a transfer or adjustment of `lot` (BUC). */
  const lotOf = (lot: string, expiry: string) => ({ lot, expiry_date: expiry });

  it('When a lot was received twice, transferred and adjusted, Then the trace lists each movement with its delta and document, oldest first, and the balances add up; another lot stays out', async () => {
    const a = await trackedArticle(world);
    const [lot, other] = [unique('L-'), unique('L-')];
    const expiry = dayFromToday(90);
    const first = await receiveLots(world, a, [{ quantity: 10, lot, expiry_date: expiry }, { quantity: 7, lot: other, expiry_date: dayFromToday(60) }]);
    const second = await receiveLots(world, a, [{ quantity: 6, lot, expiry_date: expiry }], w2);
    const moved = await transfer(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 4, ...lotOf(lot, expiry), from: { warehouse_id: w1, stock_type: 'STOC_OK' }, to: { warehouse_id: w1, stock_type: 'STOC_QUARANTINE' } }]);
    const adjusted = await adjust(world, [{ article_id: a.id, um3pl: 'BUC', delta_um3pl: -2, ...lotOf(lot, expiry) }], { reason: 'damage' });
    await adjust(world, [{ article_id: a.id, um3pl: 'BUC', delta_um3pl: -1, ...lotOf(other, dayFromToday(60)) }], { reason: 'damage' });

    const res = await trace(a, lot).expect(200);
    const data = res.body.data;
    expect(data).to.include({ article_id: a.id, article_code: a.code, client_3pl_id: world.client.id, lot });
    expect(data.receptions.map(brief)).to.deep.equal([
      [w1, 'STOC_OK', expiry, 10, 'reception', first.id],
      [w2, 'STOC_OK', expiry, 6, 'reception', second.id],
    ]);
    expect(data.transfers.map(brief)).to.have.deep.members([
      [w1, 'STOC_OK', expiry, -4, 'transfer', moved.id],
      [w1, 'STOC_QUARANTINE', expiry, 4, 'transfer', moved.id],
    ]);
    expect(data.adjustments.map(brief)).to.deep.equal([[w1, 'STOC_OK', expiry, -2, 'adjustment', adjusted.id]]);
    expect(data.shipments).to.deep.equal([]);
    expect(data.returns).to.deep.equal([]);

    const all: Entry[] = [...data.receptions, ...data.transfers, ...data.adjustments];
    for (const e of all) expectApiTime(e.created_at);
    const ids = all.map((e) => e.movement_id);
    const ledger = (await world.as('viewer').get(`/api/stock/movements?article_id=${a.id}&per_page=100`).expect(200)).body.data;
    expect(ids).to.have.members(ledger.filter((m: { lot: string | null }) => m.lot === lot).map((m: { id: number }) => m.id));
    expect(data.receptions[0].movement_id).to.be.lessThan(data.receptions[1].movement_id);

    const balances = data.balances.map((b: Record<string, unknown>) => [b.warehouse_id, b.stock_type, b.lot, b.expiry_date, b.quantity]);
    expect(balances).to.have.deep.members([
      [w1, 'STOC_OK', lot, expiry, 4],
      [w2, 'STOC_OK', lot, expiry, 6],
      [w1, 'STOC_QUARANTINE', lot, expiry, 4],
    ]);
    const listed = (await world.as('viewer').get(`/api/stock?article_id=${a.id}`).expect(200)).body.data;
    expect(data.balances).to.have.deep.members(listed.filter((row: { lot: string | null }) => row.lot === lot));
    const came = all.reduce((sum, e) => sum + Math.round(e.delta * 1000), 0);
    expect(came).to.equal(data.balances.reduce((sum: number, b: { quantity: number }) => sum + Math.round(b.quantity * 1000), 0));
  });

  it('When goods of the lot were shipped, delivered and returned, Then shipments name the shipment, sales order, partner and tracking, and the return is listed', async () => {
    const a = await trackedArticle(world);
    const lot = unique('L-');
    const expiry = dayFromToday(30);
    await receiveLots(world, a, [{ quantity: 20, lot, expiry_date: expiry }]);
    const shipped = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
    await moveThrough(world, shipped.id, ['picking']);
    const shipment = await ship(world, shipped, [[0, 3]], { tracking_number: unique('TRK-'), carrier: 'DHL' });
    const delivered = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 2 }]);
    const done = await moveThrough(world, delivered.id, ['picking', 'picked', 'delivered']);
    const returned = (
      await world
        .as('operator')
        .post('/api/returns')
        .send({ partner_id: world.partners.client, warehouse_id: w1, sales_order_id: shipped.id, items: [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 1, lot, expiry_date: expiry }] })
        .expect(201)
    ).body.data;

    const data = (await trace(a, lot).expect(200)).body.data;
    const partner = (await world.as('viewer').get(`/api/partners/${world.partners.client}`).expect(200)).body.data;
    expect(data.shipments).to.have.length(2);
    const [byShipment, byDelivery] = data.shipments;
    expect(byShipment).to.include({
      delta: -3,
      shipment_id: shipment.id,
      sales_order_id: shipped.id,
      sales_order_internal_code: shipped.internal_code,
      partner_id: world.partners.client,
      partner_name: partner.name,
      tracking_number: shipment.tracking_number,
      shipped_at: shipment.shipped_at,
    });
    expect(byShipment.document).to.deep.equal({ type: 'shipment', id: shipment.id });
    expect(byDelivery).to.include({
      delta: -2,
      shipment_id: done.shipments[0]!.id,
      sales_order_id: delivered.id,
      sales_order_internal_code: delivered.internal_code,
      partner_id: world.partners.client,
      partner_name: partner.name,
      tracking_number: null,
    });
    expect(byDelivery.document).to.deep.equal({ type: 'sales_order', id: delivered.id });
    expect(data.returns.map(brief)).to.deep.equal([[w1, 'STOC_OK', expiry, 1, 'return', returned.id]]);
    expect(data.balances.map((b: { quantity: number; reserved: number }) => [b.quantity, b.reserved])).to.deep.equal([[16, 2]]);
  });

  it('When a lot nobody received is traced, Then the lists are empty (not a 404)', async () => {
    const a = await trackedArticle(world);
    const res = await trace(a, 'NEVER-ARRIVED').expect(200);
    expect(res.body.data).to.deep.include({ receptions: [], shipments: [], returns: [], adjustments: [], transfers: [], balances: [] });
  });

  it('When the article tracks no lots, Then 422 on article_id says so (an article tracking only expiry dates too)', async () => {
    for (const article of [world.articles.client, await trackedArticle(world, world.client.id, { lot: false, expiry: true })] as TestArticle[]) {
      const res = await trace(article, 'L1').expect(422);
      expect(Object.keys(res.body.errors)).to.deep.equal(['article_id']);
      expect(res.body.errors.article_id[0]).to.include('does not track lots');
    }
  });

  it('When the article is another client\'s or does not exist, Then 422 on article_id: it is not an article in scope', async () => {
    const foreign = await trackedArticle(world, world.otherClient.id);
    for (const article of [foreign, { id: 2_000_000_000 }]) {
      const res = await trace(article, 'L1').expect(422);
      expect(res.body.errors.article_id[0]).to.include('not an article in scope');
    }
    // The provider sees both clients: the other client's article is in its scope.
    const seen = await trace(foreign, 'L1', 'providerViewer', world.provider.id).expect(200);
    expect(seen.body.data.client_3pl_id).to.equal(world.otherClient.id);
  });

  it('When a required parameter is sent empty (lot=, or at= of stock as of a time), Then 422 says it must not be empty, without telling to leave it out', async () => {
    const a = await trackedArticle(world);
    const lot = await world.as('viewer').get(`/api/lots/trace?article_id=${a.id}&lot=`).expect(422);
    expect(lot.body.errors).to.deep.equal({ lot: ['The lot field must not be empty.'] });
    const at = await world.as('viewer').get('/api/stock/as-of?at=').expect(422);
    expect(at.body.errors).to.deep.equal({ at: ['The at field must not be empty.'] });
    const optional = await world.as('viewer').get('/api/stock?lot=').expect(422);
    expect(optional.body.errors).to.deep.equal({ lot: ['The lot field must not be empty; leave it out instead.'] });
  });

  it('When the stock module is off, Then 403', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['stock'] });
    await off.as('viewer').get(`/api/lots/trace?article_id=${off.articles.client.id}&lot=L1`).expect(403);
  });
});
