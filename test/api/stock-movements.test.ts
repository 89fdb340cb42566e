/**
 * GET /api/stock/movements: the ledger read as a feed. Every change of stock on hand is one row
 * with the balance after it; a reader that follows next_cursor reads each once; the filters keep
 * what they name; a balance's deltas add up to its quantity. And GET /api/stock/as-of: the
 * balances at an instant, from the ledger.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { readDocument } from '../../src/platform/openapi/document.js';
import { freshArticle, type Article } from '../fixtures/articles.js';
import { API_TIME } from '../fixtures/probes.js';
import { createReturnOf } from '../fixtures/returns.js';
import { buc, createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';
import { adjust, countLine, deltaLine } from '../fixtures/stock-adjustments.js';
import { transfer, transferLine } from '../fixtures/stock-transfers.js';
import { receiveStock, type StockLevel } from '../fixtures/stock.js';

interface Movement {
  id: number;
  created_at: string;
  client_3pl_id: number;
  warehouse_id: number;
  article_id: number;
  article_code: string;
  stock_type: string;
  delta: number;
  quantity_after: number;
  cause: string;
  document: { type: string; id: number } | null;
}

/** The API time one microsecond earlier. */
function justBefore(time: string): string {
  const micros = Number(time.slice(20, 26));
  if (micros > 0) return `${time.slice(0, 20)}${String(micros - 1).padStart(6, '0')}Z`;
  const earlier = new Date(Date.parse(time) - 1000).toISOString();
  return `${earlier.slice(0, 19)}.999999Z`;
}

describe('GET /api/stock/movements', () => {
  let h: Harness;
  let world: World;
  let a: Article;
  let b: Article;
  let w1: number;
  let w2: number;
  let mine: Movement[];

  const feed = async (query: string, actor: 'viewer' | 'providerViewer' = 'viewer') => (await world.as(actor).get(`/api/stock/movements?${query}`).expect(200)).body as { data: Movement[]; meta: { next_cursor: number | null } };

  /** Every movement of the query, following next_cursor with pages of `perPage`. */
  async function readAll(query: string, perPage: number): Promise<Movement[]> {
    const all: Movement[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await feed(`${query}&per_page=${perPage}${after ? `&after=${after}` : ''}`);
      all.push(...page.data);
      if (page.meta.next_cursor === null) return all;
      expect(page.data).to.have.length(perPage);
      expect(page.meta.next_cursor).to.equal(page.data[page.data.length - 1]!.id);
      after = page.meta.next_cursor;
    }
  }

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    [w1, w2] = world.warehouses as [number, number];
    [a, b] = [await freshArticle(world), await freshArticle(world)];
    await receiveStock(world, a, 10);
    const order = await createSalesOrder(world, [buc(a, 3)]);
    await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);
    await adjust(world, [countLine(a, 5), deltaLine(b, 4, 'STOC_QUARANTINE')], { reason: 'count' });
    await transfer(world, [transferLine(b, 4, [w1, 'STOC_QUARANTINE'], [w2, 'STOC_OK'])]);
    mine = await readAll(`article_id=${a.id}`, 500).then(async (rows) => [...rows, ...(await readAll(`article_id=${b.id}`, 500))]);
  });

  it('When receptions, deliveries, adjustments and transfers moved stock, Then each is a row in commit order with its cause, document and the balance after it', async () => {
    const ofA = mine.filter((m) => m.article_id === a.id);
    expect(ofA.map((m) => [m.cause, m.delta, m.quantity_after, m.document?.type])).to.deep.equal([
      ['reception', 10, 10, 'reception'],
      ['delivery', -3, 7, 'sales_order'],
      ['adjustment', -2, 5, 'adjustment'],
    ]);
    for (const m of ofA) {
      expect(m).to.include({ client_3pl_id: world.client.id, warehouse_id: w1, article_code: a.code, stock_type: 'STOC_OK' });
      expect(m.created_at).to.match(API_TIME);
    }
    const ofB = mine.filter((m) => m.article_id === b.id);
    expect(ofB.map((m) => [m.cause, m.warehouse_id, m.stock_type, m.delta, m.quantity_after])).to.deep.equal([
      ['adjustment', w1, 'STOC_QUARANTINE', 4, 4],
      ['transfer', w2, 'STOC_OK', 4, 4],
      ['transfer', w1, 'STOC_QUARANTINE', -4, 0],
    ]);
  });

  it('When every kind of document moved stock (a shipment and a return too), Then StockDocument.type\'s description names each document type the movements show', async () => {
    const c = await freshArticle(world);
    await receiveStock(world, c, 5);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(c, 2)])).id, ['picking']);
    await ship(world, order);
    await createReturnOf(world, world.client.id, [buc(c, 1)]);
    const types = new Set([...mine, ...(await readAll(`article_id=${c.id}`, 500))].map((m) => m.document?.type));
    expect([...types].sort()).to.deep.equal(['adjustment', 'reception', 'return', 'sales_order', 'shipment', 'transfer']);
    const schemas = readDocument().components.schemas as Record<string, { properties: { type: { description: string } } }>;
    const description = schemas.StockDocument!.properties.type.description;
    for (const type of types) expect(description, type).to.include(`\`${type}\``);
  });

  it("When a balance's deltas are summed, Then they equal its quantity in GET /api/stock", async () => {
    const stock = (await world.as('viewer').get(`/api/stock?article_id=${a.id},${b.id}&per_page=200`).expect(200)).body.data as StockLevel[];
    for (const row of stock) {
      const sum = mine.filter((m) => m.article_id === row.article_id && m.warehouse_id === row.warehouse_id && m.stock_type === row.stock_type).reduce((s, m) => s + m.delta * 1000, 0);
      expect(sum / 1000, `${row.article_code} ${row.stock_type} in ${row.warehouse_id}`).to.equal(row.quantity);
    }
  });

  it('When a reader follows next_cursor one row at a time, Then it reads every movement once, in the order of one page', async () => {
    const paged = await readAll(`article_id=${a.id}`, 1);
    expect(paged.map((m) => m.id)).to.deep.equal(mine.filter((m) => m.article_id === a.id).map((m) => m.id));
  });

  it('When filtered by warehouse, stock type, cause and time, Then only the movements that match come back', async () => {
    const ids = async (query: string) => (await readAll(query, 500)).map((m) => m.id);
    const ofB = mine.filter((m) => m.article_id === b.id);
    expect(await ids(`article_id=${b.id}&warehouse_id=${w2}`)).to.deep.equal([ofB[1]!.id]);
    expect(await ids(`article_id=${b.id}&stock_type=STOC_QUARANTINE`)).to.deep.equal([ofB[0]!.id, ofB[2]!.id]);
    expect(await ids(`article_id=${a.id}&cause=delivery`)).to.deep.equal([mine.find((m) => m.cause === 'delivery')!.id]);
    const adjusted = mine.find((m) => m.article_id === a.id && m.cause === 'adjustment')!;
    expect(await ids(`article_id=${a.id}&since=${encodeURIComponent(adjusted.created_at)}`)).to.deep.equal([adjusted.id]);
    expect(await ids(`article_id=${a.id}&until=${encodeURIComponent(justBefore(adjusted.created_at))}`)).to.deep.equal(mine.filter((m) => m.article_id === a.id).slice(0, 2).map((m) => m.id));
    expect(await ids(`article_id=${a.id}&since=2999-01-01T00:00:00Z`)).to.deep.equal([]);
  });

  it("When the scope is the client, Then the sibling client's movements are not there and its movement ids are a 422 on after; the provider sees both", async () => {
    await adjust(world, [deltaLine(world.articles.otherClient, 1)], { reason: 'found' }, 'otherClientAdmin');
    const sibling = (await world.as('otherClientAdmin').get(`/api/stock/movements?article_id=${world.articles.otherClient.id}`).expect(200)).body.data as Movement[];
    expect(sibling).to.have.length.at.least(1);
    expect((await feed(`article_id=${world.articles.otherClient.id}`)).data).to.deep.equal([]);
    const refused = await world.as('viewer').get(`/api/stock/movements?after=${sibling[0]!.id}`).expect(422);
    expect(refused.body.errors).to.deep.equal({ after: [`No movement ${sibling[0]!.id} in this feed: pass the id of a movement it answered; leave after out to start from the beginning.`] });
    const both = await feed(`per_page=500`, 'providerViewer');
    const clients = new Set(both.data.map((m) => m.client_3pl_id));
    expect([...clients].sort()).to.deep.equal([world.client.id, world.otherClient.id].sort());
  });
});

describe('GET /api/stock/as-of', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When stock moved over time, Then each balance shows what it held at the instant asked, 0 before its first movement, and the stock now for a future instant', async () => {
    const [a, b] = [await freshArticle(world), await freshArticle(world)];
    const w1 = world.warehouses[0]!;
    const found = await adjust(world, [deltaLine(a, 6), deltaLine(b, 2, 'STOC_DEFECT')], { reason: 'found' });
    const later = await adjust(world, [deltaLine(a, -4)], { reason: 'loss' });
    const moved = await transfer(world, [transferLine(a, 1, [w1, 'STOC_OK'], [w1, 'STOC_QUARANTINE'])]);
    const asOf = async (at: string) => {
      const res = await world.as('viewer').get(`/api/stock/as-of?at=${encodeURIComponent(at)}&article_id=${a.id},${b.id}&per_page=200`).expect(200);
      return Object.fromEntries((res.body.data as Array<{ article_id: number; stock_type: string; quantity: number }>).map((r) => [`${r.article_id === a.id ? 'a' : 'b'} ${r.stock_type}`, r.quantity]));
    };
    expect(await asOf(justBefore(found.created_at))).to.deep.equal({ 'a STOC_OK': 0, 'b STOC_DEFECT': 0, 'a STOC_QUARANTINE': 0 });
    expect(await asOf(justBefore(later.created_at))).to.deep.equal({ 'a STOC_OK': 6, 'b STOC_DEFECT': 2, 'a STOC_QUARANTINE': 0 });
    expect(await asOf(justBefore(moved.created_at))).to.deep.equal({ 'a STOC_OK': 2, 'b STOC_DEFECT': 2, 'a STOC_QUARANTINE': 0 });
    expect(await asOf('2999-01-01T00:00:00Z')).to.deep.equal({ 'a STOC_OK': 1, 'b STOC_DEFECT': 2, 'a STOC_QUARANTINE': 1 });
  });

  it('When paged and filtered like GET /api/stock, Then it answers the same rows in the same order with the same meta', async () => {
    const a = await freshArticle(world);
    await adjust(world, [deltaLine(a, 1), deltaLine(a, 2, 'STOC_DEFECT')], { reason: 'found' });
    await adjust(world, [deltaLine(a, 3)], { reason: 'found', warehouse_id: world.warehouses[1] });
    for (const query of [`article_id=${a.id}&per_page=2&page=2`, `article_id=${a.id}&stock_type=STOC_OK`, `article_code=${a.code}&warehouse_id=${world.warehouses[1]}`]) {
      const stock = (await world.as('viewer').get(`/api/stock?${query}`).expect(200)).body;
      const asOf = (await world.as('viewer').get(`/api/stock/as-of?at=2999-01-01T00:00:00Z&${query}`).expect(200)).body;
      expect(asOf.data.map((r: StockLevel) => [r.warehouse_id, r.stock_type, r.quantity])).to.deep.equal(stock.data.map((r: StockLevel) => [r.warehouse_id, r.stock_type, r.quantity]));
      expect({ ...asOf.meta, path: null }).to.deep.equal({ ...stock.meta, path: null });
    }
    const bad = await world.as('viewer').get('/api/stock/as-of?at=yesterday').expect(422);
    expect(bad.body.errors).to.have.all.keys('at');
    const beyond = await world.as('viewer').get(`/api/stock/as-of?at=${encodeURIComponent('9999-12-31T23:59:59-01:00')}`).expect(422);
    expect(beyond.body.errors).to.deep.equal({ at: ['The at field must be a time of the years 0000 to 9999 in UTC.'] });
    await world.as('viewer').get('/api/stock/as-of').expect(422);
  });

  it('When updated_since is sent, Then 422 on it, and the description names it as the one filter of GET /api/stock it does not take', async () => {
    const res = await world.as('viewer').get('/api/stock/as-of?at=2999-01-01T00:00:00Z&updated_since=2026-01-01T00:00:00Z').expect(422);
    expect(res.body.errors).to.deep.equal({ updated_since: ['The updated_since field is not allowed.'] });
    const doc = readDocument();
    const names = (path: string) =>
      (doc.paths[path]!.get as { parameters: Array<{ name?: string; $ref?: string }> }).parameters.map((p) => p.name ?? p.$ref!.split('/').pop());
    expect(names('/api/stock').filter((n) => !names('/api/stock/as-of').includes(n))).to.deep.equal(['UpdatedSince']);
    const description = (doc.paths['/api/stock/as-of']!.get as { description: string }).description;
    expect(description.replace(/\s+/g, ' ')).to.include('and its filters but `updated_since`').and.not.include('same rows, order, pages and filters');
  });
});
