/**
 * POST /api/sales-orders/{id}/shipments refused: every problem of the request at once, keyed as
 * sent (`items.0.quantity_um3pl`; `items` for a shipment of everything left) or by the order's
 * field that forbids it (`status`, `on_hold`), and nothing changes: no shipment, no stock, no
 * line, no event.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, kgArticle, type Article } from '../fixtures/articles.js';
import { outboundState } from '../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough, reachStatus, ship, type SalesOrder } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';

const INVALID = 'The given data was invalid.';
const SHORT = 'Not enough stock for the shipment; nothing was shipped.';

describe('POST /api/sales-orders/{id}/shipments', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const post = (id: number, body: object) => world.as('operator').post(`/api/sales-orders/${id}/shipments`).send(body);
  const shipmentsOfClient = async () => (await h.db('shipments').where('company_id', world.client.id).count({ n: '*' }).first())!.n;
  const shortfall = (article: Article, onHand: number, needed: number, short: number, by = '') =>
    `Not enough STOC_OK stock of article ${article.code} in warehouse ${world.warehouses[0]}: ${onHand} on hand, ${needed} needed${by}, short by ${short}.`;

  /** Sends the shipment, expects a 422 with `message` and exactly `errors`, and that nothing of the client changed. */
  async function refused(orderId: number, body: object, errors: Record<string, string[]>, message = INVALID): Promise<void> {
    const before = { state: await outboundState(h.db, world.client.id), shipments: await shipmentsOfClient() };
    const res = await post(orderId, body).expect(422);
    expect(res.body).to.deep.equal({ message, errors });
    expect({ state: await outboundState(h.db, world.client.id), shipments: await shipmentsOfClient() }).to.deep.equal(before);
  }

  async function picked(lines: Parameters<typeof buc>[], stock = 10): Promise<SalesOrder> {
    for (const [article] of lines) await receiveStock(world, article, stock);
    return moveThrough(world, (await createSalesOrder(world, lines.map(([article, quantity]) => buc(article, quantity)))).id, ['picking', 'picked']);
  }

  it('When lines are not of the order, repeated, beyond what is left, or break the whole-number rule, Then 422 naming each line, and nothing ships', async () => {
    const [a, b, c] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    const order = await picked([[a, 3], [b, 2], [c, 5]]);
    await ship(world, order, [[2, 4]]);
    const other = await createSalesOrder(world, [buc(a, 1)]);
    const [l0, l1, l2] = order.items.map((i) => i.id) as [number, number, number];
    await refused(order.id, {
      items: [
        { so_item_id: other.items[0]!.id, quantity_um3pl: 1 },
        { so_item_id: l0, quantity_um3pl: 4 },
        { so_item_id: l1, quantity_um3pl: '1,5' },
        { so_item_id: l0, quantity_um3pl: 1 },
        { so_item_id: l2, quantity_um3pl: 2 },
        { so_item_id: l1, quantity_um3pl: '0,0001' },
      ],
    }, {
      'items.0.so_item_id': [`Line ${other.items[0]!.id} is not a line of sales order ${order.id}.`],
      'items.1.quantity_um3pl': ['Shipping 4 would exceed the 3 left to ship on this line (3 ordered, 0 shipped).'],
      'items.2.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'],
      'items.3.so_item_id': [`Line ${l0} appears more than once; send it once with the whole quantity.`],
      'items.4.quantity_um3pl': ['Shipping 2 would exceed the 1 left to ship on this line (5 ordered, 4 shipped).'],
      'items.5.so_item_id': [`Line ${l1} appears more than once; send it once with the whole quantity.`],
    });
  });

  it('When a line\'s quantity is of a type it cannot be, or a string over 32 characters, Then 422 answers the quantity\'s own message, or the length limit', async () => {
    const a = await freshArticle(world, world.client.id);
    const order = await picked([[a, 3]]);
    const line = order.items[0]!.id;
    await refused(order.id, { items: [{ so_item_id: line, quantity_um3pl: null }, { so_item_id: line, quantity_um3pl: '1'.repeat(33) }] }, {
      'items.0.quantity_um3pl': ['The quantity must be a number, or a string such as "1,5".'],
      'items.1.quantity_um3pl': ['The quantity must not be longer than 32 characters.'],
    });
  });

  it('When the article of a KG line takes whole quantities only, Then a fraction of the line is refused on it', async () => {
    const kg = await kgArticle(world, world.client.id, true);
    await receiveStock(world, kg, 5, world.warehouses[0], 'KG');
    const order = await moveThrough(world, (await createSalesOrder(world, [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: 3 }])).id, ['picking']);
    await refused(order.id, { items: [{ so_item_id: order.items[0]!.id, quantity_um3pl: 1.25 }] }, {
      'items.0.quantity_um3pl': [`The quantity must be a whole number: article ${kg.code} takes whole quantities only.`],
    });
  });

  it('When stock is short on two lines, Then 422 naming each with its shortfall, and not even the line with stock ships; without items the shortfalls are on items, in the order\'s line order', async () => {
    const [a, b, c] = [await freshArticle(world, world.client.id), await freshArticle(world, world.client.id), await freshArticle(world, world.client.id)];
    await receiveStock(world, a, 10);
    await receiveStock(world, b, 1);
    const order = await moveThrough(world, (await createSalesOrder(world, [buc(a, 2), buc(b, 3), buc(c, 1)])).id, ['picking', 'picked']);
    const [l0, l1, l2] = order.items.map((i) => i.id) as [number, number, number];
    await refused(order.id, { items: [{ so_item_id: l2, quantity_um3pl: 1 }, { so_item_id: l0, quantity_um3pl: 2 }, { so_item_id: l1, quantity_um3pl: 2 }] }, {
      'items.0.quantity_um3pl': [shortfall(c, 0, 1, 1)],
      'items.2.quantity_um3pl': [shortfall(b, 1, 2, 1)],
    }, SHORT);
    await refused(order.id, {}, { items: [shortfall(b, 1, 3, 2), shortfall(c, 0, 1, 1)] }, SHORT);
  });

  it('When two lines of one KG article (1 and 0.5) meet 1.234 on hand, Then the shortfall gives 1.234 on hand against what the lines need together, on items without items and on the line sent with them', async () => {
    const kg = await kgArticle(world, world.client.id);
    await receiveStock(world, kg, 1.234, world.warehouses[0], 'KG');
    const kgLine = (quantity: number | string) => ({ article_id: kg.id, um3pl: 'KG', quantity_um3pl: quantity });
    const order = await moveThrough(world, (await createSalesOrder(world, [kgLine(1), kgLine('0,5')])).id, ['picking']);
    const [l0, l1] = order.items.map((i) => i.id) as [number, number];
    await refused(order.id, {}, { items: [shortfall(kg, 1.234, 1.5, 0.266, " by the order's lines")] }, SHORT);
    // Lines of one article are taken in the order sent: the second, which no longer fits, is named.
    await refused(order.id, { items: [{ so_item_id: l1, quantity_um3pl: 0.5 }, { so_item_id: l0, quantity_um3pl: 1 }] }, {
      'items.1.quantity_um3pl': [shortfall(kg, 1.234, 1.5, 0.266, " by the shipment's lines")],
    }, SHORT);
    await refused(order.id, { items: [{ so_item_id: l0, quantity_um3pl: 1 }, { so_item_id: l1, quantity_um3pl: '0,3' }] }, {
      'items.1.quantity_um3pl': [shortfall(kg, 1.234, 1.3, 0.066, " by the shipment's lines")],
    }, SHORT);
  });

  for (const status of ['new', 'delivered', 'closed', 'cancelled']) {
    it(`When the order is ${status}, Then 422 on status naming it, and nothing ships`, async () => {
      const a = await freshArticle(world, world.client.id);
      await receiveStock(world, a, 5);
      const order = await reachStatus(world, await createSalesOrder(world, [buc(a, 2)]), status);
      const message = `The order is ${status}; only a picking, picked or partially_delivered order ships${status === 'new' ? ' (move it to picking first)' : ''}.`;
      await refused(order.id, { carrier: 'DHL' }, { status: [message] }, message);
    });
  }

  it('When the order is on hold, Then 422 on on_hold naming the hold with the lines\' problems; once released it ships', async () => {
    const a = await freshArticle(world, world.client.id);
    const order = await picked([[a, 2]]);
    await world.as('operator').post(`/api/sales-orders/${order.id}/hold`).send({ reason: 'Credit check' }).expect(200);
    const held = `The order is on hold (Credit check); release it first with POST /api/sales-orders/${order.id}/release.`;
    await refused(order.id, {}, { on_hold: [held] }, held);
    await refused(order.id, { items: [{ so_item_id: order.items[0]!.id, quantity_um3pl: 3 }] }, {
      on_hold: [held],
      'items.0.quantity_um3pl': ['Shipping 3 would exceed the 2 left to ship on this line (2 ordered, 0 shipped).'],
    });
    await world.as('operator').post(`/api/sales-orders/${order.id}/release`).expect(200);
    await ship(world, order);
  });

  it('When the tracking URL is not an http(s) URL, shipped_at is ahead of the clock or before 2000, or the internal_code is taken, Then 422 on each field', async () => {
    const a = await freshArticle(world, world.client.id);
    const order = await picked([[a, 3]]);
    await ship(world, order, [[0, 1]], { internal_code: 'DN-TAKEN' });
    const ahead = new Date(Date.now() + 15 * 60_000).toISOString();
    await refused(order.id, { tracking_url: 'www.dhl.com/track?id=1', shipped_at: ahead, internal_code: 'DN-TAKEN' }, {
      tracking_url: ['The tracking_url must be an absolute http or https URL, such as https://carrier.example/track?id=JD0146.'],
      shipped_at: ['The shipped_at must not be more than 10 minutes ahead of the server clock; send when the goods left.'],
      internal_code: ['The internal_code has already been taken for this client.'],
    });
    await refused(order.id, { shipped_at: '1999-12-31T23:59:59Z' }, { shipped_at: ['The shipped_at must not be before 2000-01-01T00:00:00Z.'] }, 'The shipped_at must not be before 2000-01-01T00:00:00Z.');
    await refused(order.id, { items: [], carrier: '' }, { items: ['The items field must have at least 1 item.'], carrier: ['The carrier field must not be empty.'] });
  });

  it("When the order is another client's or unknown, Then 404 and nothing ships", async () => {
    const order = await createSalesOrder(world, [buc(world.articles.client, 1)]);
    const res = await world.as('otherClientAdmin').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(404);
    expect(res.body).to.deep.equal({ message: `Sales order ${order.id} was not found.` });
    await world.as('operator').post('/api/sales-orders/99999999/shipments').send({}).expect(404);
    await world.as('viewer').post(`/api/sales-orders/${order.id}/shipments`).send({}).expect(403);
  });
});
