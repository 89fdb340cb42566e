/** PUT /api/receptions/{id}: header fields, and line corrections that move stock and the order's received quantities by the difference. */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { kgArticle, type TestArticle } from '../fixtures/articles.js';
import { balance, eventsOf, inboundState, movementsOf, storedLines } from '../fixtures/probes.js';
import { createOrder, type PurchaseOrder } from '../fixtures/purchase-orders.js';
import { receive, type Reception } from '../fixtures/receptions.js';
import { adjust, deltaLine } from '../fixtures/stock-adjustments.js';
import { makeArticle } from '../fixtures/articles.js';

describe('PUT /api/receptions/{id}', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let wh1: number;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    wh1 = world.warehouses[0]!;
  });

  /**
   * An order of 10 BUC and 7.5 KG of two new articles (so their stock starts at nothing) and a
   * reception of `bucQty` BUC and `kgQty` KG of it into the first warehouse.
   */
  async function received(bucQty: number | string = 10, kgQty: number | string = 7.5): Promise<{ po: PurchaseOrder; reception: Reception; buc: TestArticle; kg: TestArticle }> {
    const agent = world.as('operator');
    const buc = await makeArticle(world, world.client.id, { prefix: 'BUC-' });
    const kg = await kgArticle(world, world.client.id);
    const po = await createOrder(agent, world.partners.supplier, [
      { article_id: buc.id, um3pl: 'BUC', quantity_um3pl: 10 },
      { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 7.5 },
    ]);
    const reception = await receive(agent, po.id, wh1, [[po.items[0]!.id, bucQty], [po.items[1]!.id, kgQty]]);
    return { po, reception, buc, kg };
  }
  const put = (id: number, body: Record<string, unknown>, actor: Parameters<World['as']>[0] = 'operator', company?: number | null) =>
    world.as(actor, company).put(`/api/receptions/${id}`).send(body);
  const orderNow = async (id: number): Promise<PurchaseOrder> => (await world.as('viewer').get(`/api/purchase-orders/${id}`).expect(200)).body.data;
  const stockOf = (articleId: number): Promise<number> => balance(h.db, { clientId: world.client.id, warehouseId: wh1, articleId });
  const corrections = async (receptionId: number) =>
    (await movementsOf(h.db, 'reception', receptionId)).filter((m) => m.cause === 'reception_correction').map((m) => [m.article_id, m.delta, m.warehouse_id, m.stock_type, m.user_id]);

  /** Sends a refused update and checks it is a 422 with exactly `errors` and that nothing changed. */
  async function refused(id: number, body: Record<string, unknown>, errors: Record<string, string[]>): Promise<void> {
    const before = await inboundState(h.db, world.client.id);
    const res = await put(id, body).expect(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
  }

  it('When only header fields change, Then it answers the reception with them and neither stock nor the order moves', async () => {
    const { po, reception, buc } = await received();
    const stockBefore = await stockOf(buc.id);
    const code = unique('REC-');
    const res = await put(reception.id, { internal_code: code, notes: 'Two boxes damaged', external_reference: 'ASN-9' }).expect(200);
    expect(res.body.data).to.deep.include({ id: reception.id, internal_code: code, notes: 'Two boxes damaged', external_reference: 'ASN-9', items: reception.items, created_at: reception.created_at });
    expect(res.body.data.updated_at > reception.updated_at).to.equal(true);
    expect(await h.db('receptions').where('id', reception.id).first()).to.include({ internal_code: code, notes: 'Two boxes damaged', external_reference: 'ASN-9' });
    expect(await stockOf(buc.id)).to.equal(stockBefore);
    expect(await corrections(reception.id)).to.deep.equal([]);
    expect(await eventsOf(h.db, world.client.id, 'purchase_order.updated', po.id)).to.have.length(1);
    expect((await world.as('viewer').get(`/api/receptions/${reception.id}`).expect(200)).body.data).to.deep.equal(res.body.data);
  });

  it("When internal_code is another reception's of the client, Then it answers 422 on internal_code", async () => {
    const { reception } = await received(1, 1);
    const taken = await received(1, 1);
    await put(taken.reception.id, { internal_code: unique('REC-') }).expect(200);
    const code = (await h.db('receptions').where('id', taken.reception.id).first()).internal_code as string;
    await refused(reception.id, { internal_code: code, notes: 'x' }, { internal_code: ['The internal_code has already been taken for this client.'] });
  });

  it('When a line is lowered, Then stock falls by the difference (reception_correction) and the order goes back to partially_received', async () => {
    const { po, reception, buc, kg } = await received();
    expect((await orderNow(po.id)).status).to.equal('received');
    const bucLine = reception.items[0]!;
    const res = await put(reception.id, { items: [{ id: bucLine.id, quantity_um3pl: 6 }] }).expect(200);
    expect(res.body.data.items).to.deep.equal([{ ...bucLine, quantity_um3pl: 6 }, reception.items[1]]);
    expect(Number((await h.db('reception_items').where('id', bucLine.id).first()).quantity)).to.equal(6000);
    expect(await stockOf(buc.id)).to.equal(6000);
    expect(await stockOf(kg.id)).to.equal(7500);
    expect(await corrections(reception.id)).to.deep.equal([[buc.id, -4000, wh1, 'STOC_OK', world.users.operator.id]]);
    const now = await orderNow(po.id);
    expect(now.status).to.equal('partially_received');
    expect(now.items.map((i) => i.received_quantity_um3pl)).to.deep.equal([6, 7.5]);
    const orderEvents = await eventsOf(h.db, world.client.id, 'purchase_order.updated', po.id);
    expect(orderEvents.map((e) => (e as PurchaseOrder).status)).to.deep.equal(['received', 'partially_received']);
    expect(orderEvents.at(-1)).to.deep.equal(now);
    const stockEvents = (await eventsOf(h.db, world.client.id, 'stock.changed')) as Array<{ article_id: number; warehouse_id: number; quantity: number }>;
    expect(stockEvents.filter((e) => e.article_id === buc.id).map((e) => [e.warehouse_id, e.quantity])).to.deep.equal([[wh1, 10], [wh1, 6]]);
  });

  it('When a line is raised, Then stock and the received quantity rise by the difference; reaching the ordered quantity makes the order received', async () => {
    const { po, reception, buc, kg } = await received(4, '2,5');
    const [bucLine, kgLine] = reception.items as [Reception['items'][number], Reception['items'][number]];
    await put(reception.id, { items: [{ id: kgLine.id, quantity_um3pl: '7,499' }, { id: bucLine.id, quantity_um3pl: 10 }] }).expect(200);
    expect([await stockOf(buc.id), await stockOf(kg.id)]).to.deep.equal([10000, 7499]);
    expect((await storedLines(h.db, po.id)).map((l) => l.received_quantity)).to.deep.equal([10000, 7499]);
    expect((await orderNow(po.id)).status).to.equal('partially_received');
    const res = await put(reception.id, { items: [{ id: kgLine.id, quantity_um3pl: 7.5 }] }).expect(200);
    expect(res.body.data.items.map((i: { quantity_um3pl: number }) => i.quantity_um3pl)).to.deep.equal([10, 7.5]);
    expect(await stockOf(kg.id)).to.equal(7500);
    expect(await corrections(reception.id)).to.deep.equal([
      // By article (the lock order), not in the order the request listed the lines.
      [buc.id, 6000, wh1, 'STOC_OK', world.users.operator.id],
      [kg.id, 4999, wh1, 'STOC_OK', world.users.operator.id],
      [kg.id, 1, wh1, 'STOC_OK', world.users.operator.id],
    ]);
    expect((await orderNow(po.id)).status).to.equal('received');
  });

  it('When a correction repeats the current quantity, Then nothing moves', async () => {
    const { po, reception } = await received(4, 2);
    const before = await inboundState(h.db, world.client.id);
    await put(reception.id, { items: [{ id: reception.items[0]!.id, quantity_um3pl: '4,000' }] }).expect(200);
    const after = await inboundState(h.db, world.client.id);
    expect(after.movements).to.deep.equal(before.movements);
    expect(after.events).to.deep.equal(before.events);
    expect(after.lines).to.deep.equal(before.lines);
    expect((await orderNow(po.id)).status).to.equal('partially_received');
  });

  it('When a raise would receive more than ordered, Then it answers 422 on items.N.quantity_um3pl and nothing changes', async () => {
    const { reception } = await received(10, 7.5);
    await refused(reception.id, { notes: 'Not saved', items: [{ id: reception.items[1]!.id, quantity_um3pl: 7.501 }] }, {
      'items.0.quantity_um3pl': ['Correcting this line to 7.501 would receive 7.501 of the 7.5 ordered on its purchase-order line (0 received by other receptions): correct it to at most 7.5.'],
    });
  });

  it('When other receptions received part of the line, Then a raise past it names what they received and the most this line may take', async () => {
    const { po, reception } = await received(3, 1);
    await receive(world.as('operator'), po.id, world.warehouses[1]!, [[po.items[0]!.id, 2]]);
    await receive(world.as('operator'), po.id, wh1, [[po.items[0]!.id, 4]]);
    await refused(reception.id, { items: [{ id: reception.items[0]!.id, quantity_um3pl: 5 }] }, {
      'items.0.quantity_um3pl': ['Correcting this line to 5 would receive 11 of the 10 ordered on its purchase-order line (6 received by other receptions): correct it to at most 4.'],
    });
    await put(reception.id, { items: [{ id: reception.items[0]!.id, quantity_um3pl: 4 }] }).expect(200);
    expect((await orderNow(po.id)).items[0]!.received_quantity_um3pl).to.equal(10);
  });

  it('When another reception already took the rest of the line, Then raising this one is a 422 too', async () => {
    const { po, reception } = await received(6, 1);
    await receive(world.as('operator'), po.id, world.warehouses[1]!, [[po.items[0]!.id, 4]]);
    await refused(reception.id, { items: [{ id: reception.items[1]!.id, quantity_um3pl: 2 }, { id: reception.items[0]!.id, quantity_um3pl: 7 }] }, {
      'items.1.quantity_um3pl': ['Correcting this line to 7 would receive 11 of the 10 ordered on its purchase-order line (4 received by other receptions): correct it to at most 6.'],
    });
  });

  it('When lowering would take more than the stock on hand, Then it answers 422 naming the article and the shortfall, and nothing changes', async () => {
    const { reception, buc } = await received(10, 7.5);
    const key = { clientId: world.client.id, warehouseId: wh1, articleId: buc.id };
    // Other goods left the warehouse meanwhile: only 3 of the received 10 are still on hand.
    await adjust(world, [deltaLine(buc, -((await balance(h.db, key)) - 3000) / 1000)], { warehouse_id: wh1, reason: 'loss' });
    expect(await stockOf(buc.id)).to.equal(3000);
    await refused(reception.id, { items: [{ id: reception.items[0]!.id, quantity_um3pl: 5 }] }, {
      'items.0.quantity_um3pl': [`Not enough STOC_OK stock of article ${buc.code} in warehouse ${wh1}: 3 on hand, 5 needed, short by 2.`],
    });
    const res = await put(reception.id, { items: [{ id: reception.items[0]!.id, quantity_um3pl: 7 }] }).expect(200);
    expect(res.body.data.items[0].quantity_um3pl).to.equal(7);
    expect(await stockOf(buc.id)).to.equal(0);
  });

  for (const order of ['the lowered line first', 'the raised line first'] as const) {
    it(`When two lines of one balance move in opposite directions and the stock on hand only covers the result (${order}), Then both are taken`, async () => {
      const article = await makeArticle(world, world.client.id, { prefix: 'BAL-' });
      const po = await createOrder(world.as('operator'), world.partners.supplier, [
        { article_id: article.id, um3pl: 'BUC', quantity_um3pl: 10 },
        { article_id: article.id, um3pl: 'BUC', quantity_um3pl: 10 },
      ]);
      const reception = await receive(world.as('operator'), po.id, wh1, [[po.items[0]!.id, 5], [po.items[1]!.id, 5]]);
      // 9 of the 10 received left the warehouse: 1 on hand, less than the lowered line gives back.
      await adjust(world, [deltaLine(article, -9)], { warehouse_id: wh1, reason: 'loss' });
      const lowered = { id: reception.items[0]!.id, quantity_um3pl: 3 };
      const raised = { id: reception.items[1]!.id, quantity_um3pl: 7 };
      const res = await put(reception.id, { items: order === 'the lowered line first' ? [lowered, raised] : [raised, lowered] }).expect(200);
      expect(res.body.data.items.map((i: { quantity_um3pl: number }) => i.quantity_um3pl)).to.deep.equal([3, 7]);
      expect(await stockOf(article.id)).to.equal(1000);
      expect((await corrections(reception.id)).map(([, delta]) => delta)).to.have.members([-2000, 2000]);
    });
  }

  it("When a line id is another reception's, repeated or fractional on BUC, Then it answers 422 on that line and nothing changes", async () => {
    const { reception } = await received(2, 2);
    const another = await received(2, 2);
    const foreign = another.reception.items[0]!.id;
    const own = reception.items[0]!.id;
    await refused(reception.id, { items: [{ id: reception.items[1]!.id, quantity_um3pl: 1 }, { id: foreign, quantity_um3pl: 1 }] }, {
      'items.1.id': [`Line ${foreign} is not a line of reception ${reception.id}.`],
    });
    await refused(reception.id, { items: [{ id: own, quantity_um3pl: 1 }, { id: own, quantity_um3pl: 1 }] }, {
      'items.1.id': [`Line ${own} appears more than once; send it once with the whole quantity.`],
    });
    await refused(reception.id, { items: [{ id: own, quantity_um3pl: '1,5' }, { id: reception.items[1]!.id, quantity_um3pl: 0 }] }, {
      'items.0.quantity_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'],
      'items.1.quantity_um3pl': ['The quantity must be greater than 0.'],
    });
  });

  describe('access', () => {
    it("When the reception is a sibling's or another provider's, Then it answers 404 and changes nothing", async () => {
      const sibling = await createOrder(world.as('providerAdmin'), world.partners.otherClientSupplier, [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
      const siblingReception = await receive(world.as('providerAdmin'), sibling.id, wh1, [[sibling.items[0]!.id, 5]]);
      const stranger = await createOrder(other.as('operator'), other.partners.supplier, [{ article_id: other.articles.client.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
      const strangerReception = await receive(other.as('operator'), stranger.id, other.warehouses[0]!, [[stranger.items[0]!.id, 5]]);
      const before = [await inboundState(h.db, world.otherClient.id), await inboundState(h.db, other.client.id)];
      await put(siblingReception.id, { notes: 'x', items: [{ id: siblingReception.items[0]!.id, quantity_um3pl: 1 }] })
        .expect(404, { message: `Reception ${siblingReception.id} was not found.` });
      await put(strangerReception.id, { notes: 'x', items: [{ id: strangerReception.items[0]!.id, quantity_um3pl: 1 }] }, 'providerAdmin')
        .expect(404, { message: `Reception ${strangerReception.id} was not found.` });
      expect([await inboundState(h.db, world.otherClient.id), await inboundState(h.db, other.client.id)]).to.deep.equal(before);
    });

    it('When a viewer updates, Then it answers 403; without X-Company-Id, 400; nothing changes', async () => {
      const { reception } = await received(2, 2);
      const before = await inboundState(h.db, world.client.id);
      const body = { notes: 'x', items: [{ id: reception.items[0]!.id, quantity_um3pl: 1 }] };
      const res = await put(reception.id, body, 'viewer').expect(403);
      expect(res.body.message).to.equal(`This action needs the operator role; your role in company ${world.client.name} is viewer.`);
      await put(reception.id, body, 'operator', null).expect(400, { message: 'The X-Company-Id header is required.' });
      expect(await inboundState(h.db, world.client.id)).to.deep.equal(before);
    });
  });

  it('When the article changed its unit or what it tracks since the line was received, Then correcting the line is a 422 saying to adjust instead, and the same quantity is still no change', async () => {
    const { po, reception, buc, kg } = await received(8, 5);
    await world.as('operator').put(`/api/purchase-orders/${po.id}`).send({ status: 'closed' }).expect(200);
    await adjust(world, [deltaLine(buc, -8), deltaLine(kg, -5, undefined, 'KG')]);
    // Nothing on hand and no open line: both changes are allowed.
    await world.as('operator').put(`/api/articles/${buc.id}`).send({ um3pl: 'KG' }).expect(200);
    await world.as('operator').put(`/api/articles/${kg.id}`).send({ lot_tracked: true }).expect(200);
    const [bucLine, kgLine] = reception.items;
    const adjustInstead = "this line's quantity can no longer be corrected (its stock would be a balance nothing can use); change the stock with POST /api/stock/adjustments instead.";
    await refused(reception.id, { items: [{ id: bucLine!.id, quantity_um3pl: 10 }, { id: kgLine!.id, quantity_um3pl: 7.5 }] }, {
      'items.0.quantity_um3pl': [`Article ${buc.code} is now kept in KG, and this line was received in BUC: ${adjustInstead}`],
      'items.1.quantity_um3pl': [`Article ${kg.code} now tracks lots, and this line was received without one: ${adjustInstead}`],
    });
    await put(reception.id, { items: [{ id: bucLine!.id, quantity_um3pl: 8 }, { id: kgLine!.id, quantity_um3pl: 5 }] }).expect(200);
    expect(await corrections(reception.id)).to.deep.equal([]);
  });
});
