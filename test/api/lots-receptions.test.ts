/**
 * Lots and expiry dates on receptions (issue 22): a line of an article that tracks them names its
 * lot and expiry date, a line of one that does not must not; the reception keeps them on its
 * lines, raises stock per lot and writes them on the ledger; a correction moves the line's own lot.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { ETSM_TEST_TOKEN, harness, type Harness } from '../helpers/harness.js';
import { makeArticle, type TestArticle } from '../fixtures/articles.js';
import { dayFromToday, lotMovementsOf, lotRows, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { inboundState } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';

const lotRequired = (code: string) => `Article ${code} tracks lots: give the line's lot.`;
const expiryRequired = (code: string) => `Article ${code} tracks expiry dates: give the line's expiry_date.`;
const lotRefused = (code: string) => `Article ${code} does not track lots: leave the lot out.`;
const expiryRefused = (code: string) => `Article ${code} does not track expiry dates: leave the expiry_date out.`;

type Selected = { po_item_id: number; quantity_um3pl: number | string; lot?: string; expiry_date?: string };

describe('POST /api/receptions', () => {
  let h: Harness;
  let world: World;
  let wh: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    wh = world.warehouses[0]!;
  });

  /** A purchase order of `quantities` of the articles, one line each (BUC). */
  const orderOf = (lines: Array<[TestArticle, number]>): Promise<PurchaseOrder> =>
    createOrder(world.as('operator'), world.partners.supplier, lines.map(([article, quantity]) => ({ article_id: article.id, um3pl: 'BUC', quantity_um3pl: quantity })));

  const post = (order: PurchaseOrder, selected: Selected[]) =>
    world.as('operator').post('/api/receptions').send({ purchase_order_id: order.id, warehouse_id: wh, selected_items: selected });

  /** Sends a refused reception and checks it is a 422 with exactly `errors` and that nothing was written. */
  async function refused(order: PurchaseOrder, selected: Selected[], errors: Record<string, string[]>): Promise<void> {
    const before = await inboundState(h.db, world.client.id);
    const res = await post(order, selected).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When a line of an article that tracks lots and expiry dates names neither, Then 422 on its lot and expiry_date with every other problem of the request, and nothing is written', async () => {
    const tracked = await trackedArticle(world);
    const plain = await makeArticle(world);
    const order = await orderOf([[tracked, 10], [plain, 5]]);
    await refused(order, [{ po_item_id: order.items[0]!.id, quantity_um3pl: 4 }, { po_item_id: order.items[1]!.id, quantity_um3pl: 6 }], {
      'selected_items.0.lot': [lotRequired(tracked.code)],
      'selected_items.0.expiry_date': [expiryRequired(tracked.code)],
      'selected_items.1.quantity_um3pl': ['Receiving 6 would exceed the 5 remaining on this line (5 ordered).'],
    });
  });

  it('When a line of an article that tracks neither names a lot and an expiry date, Then 422 on both', async () => {
    const plain = await makeArticle(world);
    const order = await orderOf([[plain, 5]]);
    await refused(order, [{ po_item_id: order.items[0]!.id, quantity_um3pl: 1, lot: 'L1', expiry_date: dayFromToday(30) }], {
      'selected_items.0.lot': [lotRefused(plain.code)],
      'selected_items.0.expiry_date': [expiryRefused(plain.code)],
    });
  });

  it('When an article tracks lots only, Then its line needs the lot and refuses an expiry date; a lot with surrounding spaces is refused', async () => {
    const lotOnly = await trackedArticle(world, world.client.id, { lot: true, expiry: false });
    const order = await orderOf([[lotOnly, 5], [lotOnly, 5]]);
    await refused(order, [{ po_item_id: order.items[0]!.id, quantity_um3pl: 1, expiry_date: dayFromToday(30) }, { po_item_id: order.items[1]!.id, quantity_um3pl: 1, lot: ' L1' }], {
      'selected_items.0.lot': [lotRequired(lotOnly.code)],
      'selected_items.0.expiry_date': [expiryRefused(lotOnly.code)],
      'selected_items.1.lot': ['The lot must not begin or end with spaces, nor hold control characters.'],
    });
  });

  it('When a line names an expiry date that does not exist or a lot holding a control character (C0 or C1), Then 422 on each, and nothing is written', async () => {
    const tracked = await trackedArticle(world);
    const order = await orderOf([[tracked, 10], [tracked, 10], [tracked, 10]]);
    const line = (i: number, lot: string, expiry_date: string): Selected => ({ po_item_id: order.items[i]!.id, quantity_um3pl: 1, lot, expiry_date });
    const noSuchDay = 'The selected_items.N.expiry_date field must be a date (YYYY-MM-DD) that exists, such as 2027-03-31.';
    await refused(order, [line(0, 'D1', '2027-02-31'), line(1, 'D2', '2026-13-01'), line(2, 'D3', '2026-00-00')], {
      'selected_items.0.expiry_date': [noSuchDay.replace('N', '0')],
      'selected_items.1.expiry_date': [noSuchDay.replace('N', '1')],
      'selected_items.2.expiry_date': [noSuchDay.replace('N', '2')],
    });
    await refused(order, [line(0, 'C1\u0085X', dayFromToday(30)), line(1, 'C0\u0007X', dayFromToday(30)), line(2, 'OK', '2028-02-29')], {
      'selected_items.0.lot': ['The lot must not begin or end with spaces, nor hold control characters.'],
      'selected_items.1.lot': ['The lot must not begin or end with spaces, nor hold control characters.'],
    });
  });

  it('When one article is received in two lots, Then 201 keeps each line\'s lot, GET /api/stock shows a row per lot and the ledger carries them', async () => {
    const tracked = await trackedArticle(world);
    const [soon, later] = [dayFromToday(20), dayFromToday(90)];
    const order = await orderOf([[tracked, 10], [tracked, 10]]);
    const res = await post(order, [
      { po_item_id: order.items[0]!.id, quantity_um3pl: 4, lot: 'L-B', expiry_date: later },
      { po_item_id: order.items[1]!.id, quantity_um3pl: '6', lot: 'L-A', expiry_date: soon },
    ]).expect(201);
    expect(res.body.data.items.map((i: Record<string, unknown>) => [i.po_item_id, i.quantity_um3pl, i.lot, i.expiry_date])).to.deep.equal([
      [order.items[0]!.id, 4, 'L-B', later],
      [order.items[1]!.id, 6, 'L-A', soon],
    ]);
    expect((await world.as('viewer').get(`/api/receptions/${res.body.data.id}`).expect(200)).body.data).to.deep.equal(res.body.data);
    expect(await lotRows(world, tracked.id)).to.deep.equal([
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'L-A', expiry_date: soon, quantity: 6 },
      { warehouse_id: wh, stock_type: 'STOC_OK', lot: 'L-B', expiry_date: later, quantity: 4 },
    ]);
    expect((await lotMovementsOf(h.db, 'reception', res.body.data.id)).map((m) => [m.article_id, m.lot, m.expiry_date, m.delta, m.cause])).to.have.deep.members([
      [tracked.id, 'L-B', later, 4000, 'reception'],
      [tracked.id, 'L-A', soon, 6000, 'reception'],
    ]);
  });

  it('When one order line arrives in two lots, Then both are received against it and what remains is shared; the same lot twice is refused', async () => {
    const tracked = await trackedArticle(world);
    const expiry = dayFromToday(60);
    const order = await orderOf([[tracked, 10]]);
    const item = order.items[0]!.id;
    await refused(order, [{ po_item_id: item, quantity_um3pl: 6, lot: 'L1', expiry_date: expiry }, { po_item_id: item, quantity_um3pl: 5, lot: 'L2', expiry_date: expiry }], {
      'selected_items.1.quantity_um3pl': ['Receiving 5 would exceed the 4 remaining on this line (10 ordered).'],
    });
    await refused(order, [{ po_item_id: item, quantity_um3pl: 1, lot: 'L1', expiry_date: expiry }, { po_item_id: item, quantity_um3pl: 1, lot: 'L1', expiry_date: expiry }], {
      'selected_items.1.po_item_id': [`Line ${item} appears more than once; send it once with the whole quantity.`],
    });
    await post(order, [{ po_item_id: item, quantity_um3pl: 6, lot: 'L1', expiry_date: expiry }, { po_item_id: item, quantity_um3pl: 4, lot: 'L2', expiry_date: expiry }]).expect(201);
    expect((await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data).to.deep.include({ status: 'received' });
    expect((await lotRows(world, tracked.id)).map((r) => [r.lot, r.quantity])).to.deep.equal([
      ['L1', 6],
      ['L2', 4],
    ]);
  });

  it('When an article that tracks neither is received, Then it keeps working with lot and expiry_date null', async () => {
    const plain = await makeArticle(world);
    const order = await orderOf([[plain, 5]]);
    const res = await post(order, [{ po_item_id: order.items[0]!.id, quantity_um3pl: 5 }]).expect(201);
    expect(res.body.data.items[0]).to.include({ quantity_um3pl: 5, lot: null, expiry_date: null });
    expect(await lotRows(world, plain.id)).to.deep.equal([{ warehouse_id: wh, stock_type: 'STOC_OK', lot: null, expiry_date: null, quantity: 5 }]);
    expect((await lotMovementsOf(h.db, 'reception', res.body.data.id)).map((m) => [m.lot, m.expiry_date, m.delta])).to.deep.equal([['', '', 5000]]);
  });
});

describe('PUT /api/receptions/{id}', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When a line of one lot is corrected, Then the stock of that lot moves by the difference and the other lot is untouched', async () => {
    const tracked = await trackedArticle(world);
    const [e1, e2] = [dayFromToday(30), dayFromToday(40)];
    const reception = await receiveLots(world, tracked, [
      { quantity: 5, lot: 'L1', expiry_date: e1 },
      { quantity: 7, lot: 'L2', expiry_date: e2 },
    ]);
    const line = reception.items.find((i) => i.lot === 'L1')!;
    const res = await world.as('operator').put(`/api/receptions/${reception.id}`).send({ items: [{ id: line.id, quantity_um3pl: 3 }] }).expect(200);
    expect(res.body.data.items.map((i: Record<string, unknown>) => [i.lot, i.expiry_date, i.quantity_um3pl])).to.deep.equal([
      ['L1', e1, 3],
      ['L2', e2, 7],
    ]);
    expect((await lotRows(world, tracked.id)).map((r) => [r.lot, r.expiry_date, r.quantity])).to.deep.equal([
      ['L1', e1, 3],
      ['L2', e2, 7],
    ]);
    const corrections = (await lotMovementsOf(h.db, 'reception', reception.id)).filter((m) => m.cause === 'reception_correction');
    expect(corrections.map((m) => [m.lot, m.expiry_date, m.delta])).to.deep.equal([['L1', e1, -2000]]);
  });

  describe('corrections judged on their result, not in request order', () => {
    /** An order line of 1 KG of a lot-tracked article, received as lot A 0.4 and lot B 0.6. */
    async function twoLotsOfOneLine(): Promise<{ order: PurchaseOrder; reception: { id: number; items: Array<{ id: number; lot: string }> }; article: TestArticle }> {
      const article = await trackedArticle(world, world.client.id, { um3pl: 'KG', expiry: false });
      const order = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: article.id, um3pl: 'KG', quantity_um3pl: 1 }]);
      const item = order.items[0]!.id;
      const res = await world.as('operator').post('/api/receptions').send({
        purchase_order_id: order.id,
        warehouse_id: world.warehouses[0]!,
        selected_items: [{ po_item_id: item, quantity_um3pl: 0.4, lot: 'A' }, { po_item_id: item, quantity_um3pl: 0.6, lot: 'B' }],
      }).expect(201);
      return { order, reception: res.body.data, article };
    }
    const lineOf = (reception: { items: Array<{ id: number; lot: string }> }, lot: string) => reception.items.find((i) => i.lot === lot)!.id;
    const received = async (order: PurchaseOrder) => (await world.as('viewer').get(`/api/purchase-orders/${order.id}`).expect(200)).body.data;

    for (const order of ['the lowered line first', 'the raised line first'] as const) {
      it(`When two lots of one order line are corrected to the same total (${order}), Then both are taken and the order line stays fully received`, async () => {
        const { order: po, reception, article } = await twoLotsOfOneLine();
        const lowered = { id: lineOf(reception, 'A'), quantity_um3pl: 0.2 };
        const raised = { id: lineOf(reception, 'B'), quantity_um3pl: 0.8 };
        const items = order === 'the lowered line first' ? [lowered, raised] : [raised, lowered];
        const res = await world.as('operator').put(`/api/receptions/${reception.id}`).send({ items }).expect(200);
        expect(res.body.data.items.map((i: Record<string, unknown>) => [i.lot, i.quantity_um3pl])).to.deep.equal([['A', 0.2], ['B', 0.8]]);
        expect((await lotRows(world, article.id)).map((r) => [r.lot, r.quantity])).to.deep.equal([['A', 0.2], ['B', 0.8]]);
        const after = await received(po);
        expect(after.status).to.equal('received');
        expect(after.items[0].received_quantity_um3pl).to.equal(1);
      });
    }

    it('When the corrections together would receive more than the order line ordered, Then 422 on the raised line, whatever the order, and nothing changes', async () => {
      const { reception } = await twoLotsOfOneLine();
      const [a, b] = [lineOf(reception, 'A'), lineOf(reception, 'B')];
      const message = "Correcting this line to 0.5 would receive 1.05 of the 1 ordered on its purchase-order line (0 received by other receptions, 0.55 by this reception's other lines of it): correct it to at most 0.45.";
      for (const [items, field] of [
        [[{ id: b, quantity_um3pl: 0.55 }, { id: a, quantity_um3pl: 0.5 }], 'items.1.quantity_um3pl'],
        [[{ id: a, quantity_um3pl: 0.5 }, { id: b, quantity_um3pl: 0.55 }], 'items.0.quantity_um3pl'],
      ] as const) {
        const before = await inboundState(h.db, world.client.id);
        const res = await world.as('operator').put(`/api/receptions/${reception.id}`).send({ items }).expect(422);
        expect(res.body.errors).to.deep.equal({ [field]: [message] });
        expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
      }
    });
  });
});

describe('POST /api/integrations/etsm/receptions', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When the integration receives a tracked article, Then the same lot rules apply and its stock is kept per lot', async () => {
    const tracked = await trackedArticle(world);
    const order = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: tracked.id, um3pl: 'BUC', quantity_um3pl: 10 }]);
    const etsm = () => api(h.app, { token: ETSM_TEST_TOKEN, company: world.client.id }).post('/api/integrations/etsm/receptions');
    const body = (line: Record<string, unknown>) => ({ purchase_order_id: order.id, warehouse_id: world.warehouses[1], selected_items: [{ po_item_id: order.items[0]!.id, quantity_um3pl: 2, ...line }] });
    const res = await etsm().send(body({ lot: 'ETSM-1' })).expect(422);
    expect(res.body.errors).to.deep.equal({ 'selected_items.0.expiry_date': [expiryRequired(tracked.code)] });
    const expiry = dayFromToday(45);
    const made = await etsm().send(body({ lot: 'ETSM-1', expiry_date: expiry })).expect(201);
    expect(made.body.data.items[0]).to.include({ lot: 'ETSM-1', expiry_date: expiry, quantity_um3pl: 2 });
    expect(await lotRows(world, tracked.id)).to.deep.equal([{ warehouse_id: world.warehouses[1], stock_type: 'STOC_OK', lot: 'ETSM-1', expiry_date: expiry, quantity: 2 }]);
  });
});
