/**
 * The movements of one document stand at one instant, and per balance that instant follows the
 * changes before it: a document takes its time at its end, holding every balance it changed. With
 * the first movement's time, a shipment that waited for one line's balance stamped a later line
 * before an adjustment another request had made meanwhile to that line's balance, and
 * `GET /api/stock/as-of` (the last movement by time) answered the adjustment's quantity, even for
 * an instant in the future (found by a consistency tester on MariaDB).
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { testEnv } from '../helpers/test-env.js';
import { freshArticle, type TestArticle } from '../fixtures/articles.js';
import { adjust, deltaLine } from '../fixtures/stock-adjustments.js';
import { createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { transfer, transferLine } from '../fixtures/stock-transfers.js';
import { lastEventId, outboxRows } from '../fixtures/probes.js';
import { toApiTime } from '../../src/kernel/time.js';

interface Movement {
  id: number;
  article_id: number;
  created_at: string;
  delta: number;
  quantity_after: number;
  document: { type: string; id: number } | null;
}

describe('The time of a document\'s movements', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const movementsOf = async (article: TestArticle): Promise<Movement[]> =>
    (await world.as('viewer').get(`/api/stock/movements?article_id=${article.id}&per_page=500`).expect(200)).body.data;
  const stockOf = async (article: TestArticle): Promise<number> =>
    (await world.as('viewer').get(`/api/stock?article_id=${article.id}`).expect(200)).body.data[0].quantity;
  const asOf = async (article: TestArticle, at: string): Promise<number> =>
    (await world.as('viewer').get(`/api/stock/as-of?article_id=${article.id}&at=${encodeURIComponent(at)}`).expect(200)).body.data[0].quantity;

  it('When a shipment waits for one line\'s balance while another request adjusts a later line\'s, Then its movements share one time after the adjustment, and as of now is the stock (MySQL/MariaDB; SQLite writes one at a time)', async () => {
    // Three articles in the order the shipment locks their balances: first, held, after.
    const [first, held, after] = [await freshArticle(world), await freshArticle(world), await freshArticle(world)];
    await adjust(world, [deltaLine(first, 100), deltaLine(held, 100), deltaLine(after, 100)]);
    const order = await createSalesOrder(world, [first, held, after].map((a) => ({ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 5 })));
    await moveThrough(world, order.id, ['picking']);

    const shipping = (async () => {
      if (testEnv.engine !== 'mysql') return world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(201);
      // Another session holds the held article's balance: the shipment takes the first, then waits.
      const holder = await h.db.transaction();
      try {
        await holder('stock_balances').where({ article_id: held.id, stock_type: 'STOC_OK' }).forUpdate();
        const sent = world.as('operator').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(201).then((r) => r);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await adjust(world, [deltaLine(after, 10)]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await holder.commit();
        return await sent;
      } catch (error) {
        await holder.rollback();
        throw error;
      }
    })();
    const shipment = (await shipping).body.data as { id: number };
    if (testEnv.engine !== 'mysql') await adjust(world, [deltaLine(after, 10)]);

    const shipped = (await Promise.all([first, held, after].map(movementsOf))).flat().filter((m) => m.document?.type === 'sales_order' || m.document?.type === 'shipment');
    expect(shipped, 'one movement per line').to.have.length(3);
    expect(new Set(shipped.map((m) => m.created_at)).size, 'one instant for the document').to.equal(1);

    const ledger = await movementsOf(after);
    const adjusted = ledger.filter((m) => m.document?.type === 'adjustment' && m.delta === 10);
    expect(adjusted).to.have.length(1);
    // Per balance, times follow the order the changes were made in (their ids).
    const byId = [...ledger].sort((a, b) => a.id - b.id).map((m) => m.created_at);
    expect(byId).to.deep.equal([...byId].sort());
    expect(await stockOf(after)).to.equal(105);
    const future = new Date(Date.now() + 1000).toISOString();
    for (const article of [first, held, after]) expect(await asOf(article, future), `as of now, article ${article.id}`).to.equal(await stockOf(article));
    expect(shipment.id).to.be.a('number');
  });

  it('When a transfer and a delivery change stock, Then each stock.changed, its balance\'s updated_at and its document\'s movements stand at one instant, and as of that instant is what the event says', async () => {
    const [w1, w2] = world.warehouses as [number, number];
    const [a, b] = [await freshArticle(world), await freshArticle(world)];
    await adjust(world, [deltaLine(a, 50), deltaLine(b, 50)]);
    const mark = await lastEventId(h.db);
    const moved = await transfer(world, [transferLine(a, 6, [w1, 'STOC_OK'], [w2, 'STOC_OK']), transferLine(b, 5, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])]);
    const order = await createSalesOrder(world, [a, b].map((x) => ({ article_id: x.id, um3pl: 'BUC', quantity_um3pl: 2 })));
    await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);

    const changed = (await outboxRows(h.db, { companyId: world.client.id, type: 'stock.changed', afterId: mark })).filter((e) => [a.id, b.id].includes(e.data.article_id as number) && e.data.cause !== 'reservation');
    const byDocument = new Map<string, typeof changed>();
    for (const event of changed) {
      const document = event.data.document as { type: string; id: number };
      const key = `${document.type}:${document.id}`;
      byDocument.set(key, [...(byDocument.get(key) ?? []), event]);
    }
    expect([...byDocument.keys()]).to.have.members([`transfer:${moved.id}`, `sales_order:${order.id}`]);
    const ledger = [...(await movementsOf(a)), ...(await movementsOf(b))];
    for (const [key, events] of byDocument) {
      const times = new Set<string>(events.flatMap((e) => [toApiTime(e.occurred_at), String(e.data.updated_at)]));
      const documentMovements = ledger.filter((m) => `${m.document?.type}:${m.document?.id}` === key);
      if (key.startsWith('transfer')) expect(documentMovements, key).to.have.length(4);
      for (const m of documentMovements) times.add(m.created_at);
      expect([...times], `${key}: the events' times, their rows' updated_at and the movements' created_at`).to.have.length(1);
      // As of that instant, each balance the document changed holds what its last event says.
      const at = [...times][0]!;
      for (const event of events) {
        const row = event.data as { article_id: number; warehouse_id: number; stock_type: string; quantity: number };
        const last = events.filter((e) => e.data.id === event.data.id).pop()!;
        const asOfRows = (await world.as('viewer').get(`/api/stock/as-of?article_id=${row.article_id}&warehouse_id=${row.warehouse_id}&stock_type=${row.stock_type}&at=${encodeURIComponent(at)}`).expect(200)).body.data as Array<{ quantity: number }>;
        expect(asOfRows.map((r) => r.quantity), `${key}: as of ${at}, article ${row.article_id} ${row.warehouse_id} ${row.stock_type}`).to.deep.equal([last.data.quantity]);
      }
    }
    // The stored rows carry the same time the events showed.
    for (const article of [a, b]) {
      const rows = (await world.as('viewer').get(`/api/stock?article_id=${article.id}`).expect(200)).body.data as Array<{ id: number; updated_at: string }>;
      for (const row of rows) {
        const last = changed.filter((e) => e.data.id === row.id).pop();
        if (last) expect(row.updated_at, `balance ${row.id}`).to.equal(last.data.updated_at);
      }
    }
  });
});
