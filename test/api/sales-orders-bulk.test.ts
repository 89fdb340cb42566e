/** POST /api/sales-orders/bulk: up to 100 orders, each created as a single create would, on its own. */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle } from '../fixtures/articles.js';
import { buc, orderBody } from '../fixtures/sales-orders.js';
import { levels, receiveStock } from '../fixtures/stock.js';
import { eventsOf, outboundState } from '../fixtures/probes.js';
import { withInsertTrigger } from '../fixtures/faults.js';

describe('POST /api/sales-orders/bulk', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const bulk = (items: unknown[]) => world.as('operator').post('/api/sales-orders/bulk').send({ items });

  it('When good and bad orders come together, Then the good ones are created and reserve as single creates do, and each bad one fails alone with the errors a single create gives', async () => {
    const article = await freshArticle(world);
    await receiveStock(world, article, 10);
    const bad = orderBody(world, [buc(article, 1.5)]);
    const single = await world.as('operator').post('/api/sales-orders').send(bad).expect(422);
    const res = await bulk([
      orderBody(world, [buc(article, 3)]),
      bad,
      { ...orderBody(world, [buc(article, 2)]), partner_id: world.partners.supplier },
      orderBody(world, [buc(article, 4)]),
    ]).expect(200);

    expect(res.body.meta).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 2 });
    expect(res.body.data.map((r: { status: string }) => r.status)).to.deep.equal(['created', 'failed', 'failed', 'created']);
    expect(res.body.data[1]).to.deep.equal({ index: 1, status: 'failed', errors: single.body.errors });
    expect(Object.keys(res.body.data[2].errors)).to.deep.equal(['partner_id']);
    for (const i of [0, 3]) {
      const order = (await world.as('viewer').get(`/api/sales-orders/${res.body.data[i].id}`).expect(200)).body.data;
      expect(order.status).to.equal('new');
      expect(await eventsOf(h.db, world.client.id, 'sales_order.created', order.id)).to.have.length(1);
    }
    expect(await levels(world, article.id)).to.deep.include({ quantity: 10, reserved: 7, available: 3 });
  });

  it('When an item\'s quantity is of a type it cannot be, Then it fails alone with the message a single create gives (the quantity\'s own)', async () => {
    const article = await freshArticle(world);
    const bad = orderBody(world, [{ ...buc(article, 1), quantity_um3pl: null as never }]);
    const single = await world.as('operator').post('/api/sales-orders').send(bad).expect(422);
    const res = await bulk([bad]).expect(200);
    expect(res.body.data[0]).to.deep.equal({ index: 0, status: 'failed', errors: single.body.errors });
    expect(single.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': ['The quantity must be a number, or a string such as "1,5".'] });
  });

  it('When an item is not an order at all, or there are more than 100, Then the item fails naming its fields, and the request over 100 is a 422 on items that writes nothing', async () => {
    const res = await bulk([{ partner_id: world.partners.client }]).expect(200);
    expect(res.body.data[0].status).to.equal('failed');
    expect(res.body.data[0].errors).to.include.keys('source_warehouse_id', 'internal_code', 'items');
    const article = await freshArticle(world);
    const before = await outboundState(h.db, world.client.id);
    const many = Array.from({ length: 101 }, () => orderBody(world, [buc(article, 1)], { internal_code: unique('SO-BULK-') }));
    const refused = await bulk(many).expect(422);
    expect(refused.body.errors.items).to.deep.equal(['The items field must not have more than 100 items.']);
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
  });
  /**
   * The order coded `code` meets its code taken when its first line goes in (a trigger copies the
   * order's row, as another request committing the same code between the check and the insert
   * would): its write fails after its order row and a line are written.
   */
  const codeLostAtFirstLine = <T>(code: string, work: () => Promise<T>): Promise<T> =>
    withInsertTrigger(
      h.db,
      {
        table: 'sales_order_items',
        timing: 'AFTER',
        when: `NEW.sales_order_id IN (SELECT id FROM sales_orders WHERE internal_code = '${code}')`,
        action:
          'INSERT INTO sales_orders (company_id, partner_id, source_warehouse_id, stock_type, internal_code, status, created_at, updated_at) ' +
          'SELECT company_id, partner_id, source_warehouse_id, stock_type, internal_code, status, created_at, updated_at FROM sales_orders WHERE id = NEW.sales_order_id',
      },
      work,
    );

  for (const key of [undefined, 'with']) {
    it(`When an item's write fails after its first statements (${key ? 'with' : 'without'} an Idempotency-Key), Then that item leaves no order, line, history, reservation or event, and the items around it are created`, async () => {
      const article = await freshArticle(world);
      await receiveStock(world, article, 10);
      const lost = unique('SO-LOST-');
      const items = [orderBody(world, [buc(article, 1)]), orderBody(world, [buc(article, 2), buc(article, 3)], { internal_code: lost }), orderBody(world, [buc(article, 4)])];
      const request = world.as('operator').post('/api/sales-orders/bulk');
      if (key) request.set('Idempotency-Key', unique('so-bulk-'));
      const res = await codeLostAtFirstLine(lost, async () => request.send({ items }).expect(200));
      expect(res.body.data).to.deep.equal([
        { index: 0, status: 'created', id: res.body.data[0].id },
        { index: 1, status: 'failed', errors: { internal_code: ['The internal_code has already been taken for this client.'] } },
        { index: 2, status: 'created', id: res.body.data[2].id },
      ]);
      const state = await outboundState(h.db, world.client.id);
      expect((state.orders as Array<{ internal_code: string }>).filter((o) => o.internal_code === lost)).to.deep.equal([]);
      const kept = [res.body.data[0].id, res.body.data[2].id].map(String);
      expect([...new Set((state.lines as Array<{ sales_order_id: string }>).map((l) => l.sales_order_id))].filter((id) => Number(id) > Number(kept[0]))).to.deep.equal([kept[1]]);
      expect([...new Set((state.history as Array<{ sales_order_id: string }>).map((l) => l.sales_order_id))].filter((id) => Number(id) > Number(kept[0]))).to.deep.equal([kept[1]]);
      expect(await levels(world, article.id)).to.deep.include({ quantity: 10, reserved: 5, available: 5 });
      expect((await eventsOf(h.db, world.client.id, 'sales_order.created')).filter((e) => e.internal_code === lost)).to.deep.equal([]);
    });
  }

  it('When a request is sent again with its Idempotency-Key, Then the replay answers the same body, marked replayed, and creates nothing more', async () => {
    const article = await freshArticle(world);
    const key = unique('so-bulk-');
    const items = [orderBody(world, [buc(article, 1)]), orderBody(world, [buc(article, 1.5)]), orderBody(world, [buc(article, 2)])];
    const first = await world.as('operator').post('/api/sales-orders/bulk').set('Idempotency-Key', key).send({ items }).expect(200);
    expect(first.body.meta).to.deep.equal({ created: 2, updated: 0, unchanged: 0, failed: 1 });
    const before = await outboundState(h.db, world.client.id);
    const replay = await world.as('operator').post('/api/sales-orders/bulk').set('Idempotency-Key', key).send({ items }).expect(200);
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    expect(replay.body).to.deep.equal(first.body);
    expect(await outboundState(h.db, world.client.id)).to.deep.equal(before);
    expect(await levels(world, article.id)).to.deep.include({ reserved: 3 });
  });
});
