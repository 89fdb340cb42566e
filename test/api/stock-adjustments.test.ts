/**
 * POST /api/stock/adjustments: each line changes one balance by a signed delta or sets it to a
 * count, all lines or none, with a movement (cause `adjustment`) per balance that changed,
 * `stock.changed` for it and `stock.adjusted`; never below zero; and the reads of adjustments.
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { freshArticle, kgArticle, type Article } from '../fixtures/articles.js';
import { API_TIME, eventsOf, inventoryState, movementsOf } from '../fixtures/probes.js';
import { buc, createSalesOrder } from '../fixtures/sales-orders.js';
import { adjust, adjustmentBody, countLine, deltaLine, type AdjustmentLine } from '../fixtures/stock-adjustments.js';
import { levels, receiveStock } from '../fixtures/stock.js';

describe('POST /api/stock/adjustments', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const post = (items: AdjustmentLine[], extra: Record<string, unknown> = {}) => world.as('operator').post('/api/stock/adjustments').send(adjustmentBody(world, items, extra));
  const wh = () => world.warehouses[0]!;

  it('When a line adds, another takes away and a third counts, Then 201 answers each line as applied and the balances, movements and events agree', async () => {
    const [a, b, c] = [await freshArticle(world), await freshArticle(world), await freshArticle(world)];
    await receiveStock(world, b, 10);
    await receiveStock(world, c, 7);
    const res = await post([deltaLine(a, 5), deltaLine(b, '-2'), countLine(c, 9)], { reason: 'count', note: 'Aisle 4', internal_code: unique('ADJ-') }).expect(201);
    const adjustment = res.body.data;
    expect(adjustment).to.include({ client_3pl_id: world.client.id, warehouse_id: wh(), reason: 'count', note: 'Aisle 4' });
    expect(adjustment.created_at).to.match(API_TIME);
    expect(adjustment.items.map((i: Record<string, unknown>) => [i.article_id, i.stock_type, i.counted_um3pl, i.delta_um3pl, i.quantity_before, i.quantity_after])).to.deep.equal([
      [a.id, 'STOC_OK', null, 5, 0, 5],
      [b.id, 'STOC_OK', null, -2, 10, 8],
      [c.id, 'STOC_OK', 9, 2, 7, 9],
    ]);
    expect((await levels(world, a.id)).quantity).to.equal(5);
    expect((await levels(world, b.id)).quantity).to.equal(8);
    expect((await levels(world, c.id)).quantity).to.equal(9);
    const movements = await movementsOf(h.db, 'adjustment', adjustment.id);
    expect(movements.map((m) => [m.article_id, m.delta, m.cause])).to.have.deep.members([
      [a.id, 5000, 'adjustment'],
      [b.id, -2000, 'adjustment'],
      [c.id, 2000, 'adjustment'],
    ]);
    expect(movements.every((m) => m.user_id === world.users.operator.id)).to.equal(true);
    const changed = (await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => (e.document as { id: number } | null)?.id === adjustment.id && e.cause === 'adjustment');
    expect(changed.map((e) => [e.article_id, e.delta, e.quantity])).to.have.deep.members([
      [a.id, 5, 5],
      [b.id, -2, 8],
      [c.id, 2, 9],
    ]);
    expect(await eventsOf(h.db, world.client.id, 'stock.adjusted', adjustment.id)).to.deep.equal([adjustment]);
  });

  it('When a count finds what is on hand, Then the line says delta 0 and no movement or stock.changed is written', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 4);
    const res = await post([countLine(a, '4,000')], { reason: 'count' }).expect(201);
    expect(res.body.data.items[0]).to.include({ counted_um3pl: 4, delta_um3pl: 0, quantity_before: 4, quantity_after: 4 });
    expect(await movementsOf(h.db, 'adjustment', res.body.data.id)).to.deep.equal([]);
    expect((await eventsOf(h.db, world.client.id, 'stock.changed')).filter((e) => e.article_id === a.id && e.cause === 'adjustment')).to.deep.equal([]);
  });

  it('When a count or a delta has trailing zeros beyond 3 decimals, Then they are no precision: "0.0000" counts to 0, "-1.5000" takes 1.5 and a delta "0.0000" is a zero delta', async () => {
    const [a, kg] = [await freshArticle(world), await kgArticle(world)];
    await receiveStock(world, a, 4);
    await receiveStock(world, kg, 3, wh(), 'KG');
    const res = await post([countLine(a, '0.0000'), deltaLine(kg, '-1.5000', undefined, 'KG')], { reason: 'count' }).expect(201);
    expect(res.body.data.items.map((i: Record<string, unknown>) => [i.counted_um3pl, i.delta_um3pl, i.quantity_after])).to.deep.equal([[0, -4, 0], [null, -1.5, 1.5]]);
    const zero = await post([deltaLine(a, '0.0000')]).expect(422);
    expect(zero.body.errors).to.deep.equal({ 'items.0.delta_um3pl': ['The delta must not be 0: give a positive quantity to add stock, or a negative one to take it away.'] });
  });

  it('When a count is of a balance that does not exist, Then it is created at the count; a count of 0 creates nothing', async () => {
    const [a, b] = [await freshArticle(world), await freshArticle(world)];
    await post([countLine(a, 3, 'STOC_QUARANTINE'), countLine(b, 0)], { reason: 'count' }).expect(201);
    expect(await levels(world, a.id, wh(), 'STOC_QUARANTINE')).to.include({ quantity: 3 });
    expect(await h.db('stock_balances').where('article_id', b.id)).to.deep.equal([]);
  });

  it("When a balance holds more than a line may (10^9) and is counted, Then the count may be anything up to what a balance holds (10^12), its delta beyond a line's", async () => {
    const a = await kgArticle(world);
    const line = (make: typeof deltaLine, value: number | string, stockType?: string) => make(a, value, stockType, 'KG');
    await post([line(deltaLine, 1_000_000_000), line(deltaLine, 1_000_000_000, 'STOC_QUARANTINE')]).expect(201);
    await post([line(deltaLine, '500000000,003')]).expect(201);
    const up = await post([line(countLine, '1999999999.999'), line(countLine, 1_000_000_000_000, 'STOC_QUARANTINE')], { reason: 'count' }).expect(201);
    expect(up.body.data.items.map((i: Record<string, unknown>) => [i.counted_um3pl, i.delta_um3pl, i.quantity_before, i.quantity_after])).to.deep.equal([
      [1999999999.999, 499999999.996, 1500000000.003, 1999999999.999],
      [1000000000000, 999000000000, 1000000000, 1000000000000],
    ]);
    const down = await post([line(countLine, 0, 'STOC_QUARANTINE')], { reason: 'count' }).expect(201);
    expect(down.body.data.items[0]).to.include({ delta_um3pl: -1000000000000, quantity_after: 0 });
    const over = await post([line(countLine, '1000000000000.001')], { reason: 'count' }).expect(422);
    expect(over.body.errors['items.0.counted_um3pl']).to.deep.equal(['The quantity must not be greater than 1000000000000.']);
    expect((await levels(world, a.id)).quantity).to.equal(1999999999.999);
  });

  it('When a line would take a balance below zero, Then 422 names the shortfall on that line, and nothing of the adjustment is written', async () => {
    const [a, b] = [await freshArticle(world), await freshArticle(world)];
    await receiveStock(world, b, 3);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([deltaLine(a, 5), deltaLine(b, -4)]).expect(422);
    expect(res.body).to.deep.equal({
      message: 'The adjustment cannot be applied; nothing was adjusted.',
      errors: { 'items.1.delta_um3pl': [`Not enough STOC_OK stock of article ${b.code} in warehouse ${wh()}: 3 on hand, 4 needed, short by 1.`] },
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When stock reserved by an open sales order is adjusted away, Then it is allowed (the goods are not there) and the order shows as backordered', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 5);
    await createSalesOrder(world, [buc(a, 4)]);
    await post([deltaLine(a, -3)], { reason: 'damage' }).expect(201);
    expect(await levels(world, a.id)).to.deep.equal({ quantity: 2, reserved: 4, available: 0, backordered: 2 });
  });

  it('When damaged goods move from STOC_OK to STOC_DEFECT in one damage adjustment, Then both balances change together', async () => {
    const a = await freshArticle(world);
    await receiveStock(world, a, 6);
    await post([deltaLine(a, -2), deltaLine(a, 2, 'STOC_DEFECT')], { reason: 'damage' }).expect(201);
    expect((await levels(world, a.id)).quantity).to.equal(4);
    expect((await levels(world, a.id, wh(), 'STOC_DEFECT')).quantity).to.equal(2);
  });

  it('When lines break the rules, Then one 422 names every problem on its field and nothing is written', async () => {
    const [a, b, kg, other] = [await freshArticle(world), await freshArticle(world), await kgArticle(world), world.articles.otherClient];
    const code = unique('ADJ-');
    await post([deltaLine(a, 1)], { internal_code: code }).expect(201);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post(
      [
        { article_id: a.id, um3pl: 'BUC', delta_um3pl: 1, counted_um3pl: 1 },
        { article_id: a.id, um3pl: 'BUC', stock_type: 'STOC_DEFECT' },
        deltaLine(a, 0, 'STOC_QUARANTINE'),
        countLine(kg, -1, undefined, 'KG'),
        deltaLine(b, 1.5),
        deltaLine(kg, 1.5, 'STOC_QUARANTINE', 'BUC'),
        deltaLine(other, 1),
        deltaLine(kg, '1,2345', 'STOC_DEFECT', 'KG'),
        deltaLine(a, 2),
      ],
      { internal_code: code, warehouse_id: 2147483000 },
    ).expect(422);
    expect(res.body.errors).to.deep.equal({
      warehouse_id: ['The warehouse_id must be a warehouse of the provider.'],
      internal_code: ['The internal_code has already been taken for this client.'],
      'items.0.counted_um3pl': ['Give either delta_um3pl or counted_um3pl on a line, not both.'],
      'items.1.delta_um3pl': ['Give delta_um3pl (a signed change) or counted_um3pl (what a count found).'],
      'items.2.delta_um3pl': ['The delta must not be 0: give a positive quantity to add stock, or a negative one to take it away.'],
      'items.3.counted_um3pl': ['The count must be 0 or more.'],
      'items.4.delta_um3pl': ['The quantity must be a whole number: unit BUC is counted in whole units.'],
      'items.5.um3pl': ['The unit must be the article\'s unit, KG.'],
      'items.6.article_id': [`Article ${other.id} is not an article of this client.`],
      'items.7.delta_um3pl': ['The quantity may have at most 3 decimals.'],
      'items.8.article_id': [`Line 0 already adjusts the STOC_OK stock of article ${a.code}; give each balance one line.`],
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
  });

  it('When a delta is beyond a line\'s bound either way, or signed as the API does not read it, Then 422 says the real bound or how to sign it; a count "-0" is 0 as the number -0 is', async () => {
    const [a, b, c, d, e] = [await freshArticle(world), await freshArticle(world), await freshArticle(world), await freshArticle(world), await freshArticle(world)];
    await receiveStock(world, e, 2);
    const before = await inventoryState(h.db, world.client.id);
    const res = await post([deltaLine(a, -1_000_000_001), deltaLine(b, 1_000_000_001), deltaLine(c, '+5'), deltaLine(d, '- 1'), countLine(e, '- 1')]).expect(422);
    const range = 'The delta must be between -1000000000 and 1000000000.';
    const sign = 'The delta must be a number with at most 3 decimals, such as 2, -1.5 or "-1,5": a minus right before the digits to take stock away, no sign to add it.';
    expect(res.body.errors).to.deep.equal({
      'items.0.delta_um3pl': [range],
      'items.1.delta_um3pl': [range],
      'items.2.delta_um3pl': [sign],
      'items.3.delta_um3pl': [sign],
      'items.4.counted_um3pl': ['The quantity must be a number with at most 3 decimals, such as 12, 1.5 or "1,5".'],
    });
    expect(await inventoryState(h.db, world.client.id)).to.deep.equal(before);
    const zero = await post([countLine(e, '-0')], { reason: 'count' }).expect(201);
    expect(zero.body.data.items[0]).to.include({ counted_um3pl: 0, delta_um3pl: -2, quantity_after: 0 });
  });

  it('When a delta or a count is of a type it cannot be, or a string over 32 characters, Then 422 answers the quantity\'s own message, or the length limit', async () => {
    const a = await freshArticle(world);
    const res = await post([countLine(a, null as never), deltaLine(a, true as never), deltaLine(a, '-1.50000000000000000000000000000000'), countLine(a, [1] as never)]).expect(422);
    const TYPE = 'The quantity must be a number, or a string such as "1,5".';
    expect(res.body.errors).to.deep.equal({
      'items.0.counted_um3pl': [TYPE],
      'items.1.delta_um3pl': [TYPE],
      'items.2.delta_um3pl': ['The quantity must not be longer than 32 characters.'],
      'items.3.counted_um3pl': [TYPE],
    });
  });

  it('When a KG article is adjusted by a fraction, and an integer-only article by a whole number, Then both are kept exactly', async () => {
    const kg = await kgArticle(world);
    const res = await post([deltaLine(kg, '2,125', undefined, 'KG')]).expect(201);
    expect(res.body.data.items[0]).to.include({ um3pl: 'KG', delta_um3pl: 2.125, quantity_after: 2.125 });
    await post([deltaLine(kg, -0.001, undefined, 'KG')]).expect(201);
    expect((await levels(world, kg.id)).quantity).to.equal(2.124);
  });

  describe('a deactivated article', () => {
    let gone: Article;
    const refusal = (a: Article) => `Article ${a.code} is deactivated; it cannot go on new lines.`;

    before(async () => {
      gone = await freshArticle(world);
      await receiveStock(world, gone, 5);
      await world.as('operator').put(`/api/articles/${gone.id}`).send({ active: false }).expect(200);
    });

    it('When a line would add to its stock, Then 422 on its article_id', async () => {
      const res = await post([deltaLine(gone, 1)], { reason: 'found' }).expect(422);
      expect(res.body.errors).to.deep.equal({ 'items.0.article_id': [refusal(gone)] });
    });

    it('When a count is above what is on hand, Then 422 on its article_id; a count below and a negative delta write it off', async () => {
      const res = await post([countLine(gone, 6)], { reason: 'count' }).expect(422);
      expect(res.body.errors).to.deep.equal({ 'items.0.article_id': [`Article ${gone.code} is deactivated; a count may only lower its stock (5 on hand, 6 counted).`] });
      await post([countLine(gone, 2)], { reason: 'count' }).expect(201);
      await post([deltaLine(gone, -2)], { reason: 'expiry' }).expect(201);
      expect((await levels(world, gone.id)).quantity).to.equal(0);
    });
  });

  describe('the client', () => {
    it('When X-Company-Id is the provider, Then client_3pl_id is required, must be a client in scope, and names the client whose stock moves', async () => {
      const a = world.articles.client;
      const agent = world.as('providerAdmin');
      const missing = await agent.post('/api/stock/adjustments').send(adjustmentBody(world, [deltaLine(a, 1)])).expect(422);
      expect(missing.body.errors).to.deep.include({ client_3pl_id: ['The client_3pl_id field is required when X-Company-Id is a provider.'] });
      const stranger = await agent.post('/api/stock/adjustments').send(adjustmentBody(world, [deltaLine(a, 1)], { client_3pl_id: 2147483000 })).expect(422);
      expect(stranger.body.errors).to.deep.include({ client_3pl_id: ['The client_3pl_id must be a client company in scope.'] });
      const made = await agent.post('/api/stock/adjustments').send(adjustmentBody(world, [deltaLine(a, 1)], { client_3pl_id: world.client.id })).expect(201);
      expect(made.body.data.client_3pl_id).to.equal(world.client.id);
    });

    it("When a client's operator names the sibling client's article, Then 422 on its article_id", async () => {
      const res = await post([deltaLine(world.articles.otherClient, 1)]).expect(422);
      expect(res.body.errors).to.deep.equal({ 'items.0.article_id': [`Article ${world.articles.otherClient.id} is not an article of this client.`] });
    });
  });

  it('When the same Idempotency-Key is sent again with the same body, Then the stored answer comes back and stock moves once', async () => {
    const a = await freshArticle(world);
    const key = unique('idem-');
    const body = adjustmentBody(world, [deltaLine(a, 2)], { reason: 'found' });
    const first = await world.as('operator').post('/api/stock/adjustments').set('Idempotency-Key', key).send(body).expect(201);
    const again = await world.as('operator').post('/api/stock/adjustments').set('Idempotency-Key', key).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect((await levels(world, a.id)).quantity).to.equal(2);
  });
});

describe('GET /api/stock/adjustments and GET /api/stock/adjustments/{id}', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When adjustments exist, Then the list shows the newest first and filters by warehouse, reason, code and time', async () => {
    const a = await freshArticle(world);
    const first = await adjust(world, [deltaLine(a, 1)], { reason: 'found' });
    const code = unique('ADJ-');
    const second = await adjust(world, [deltaLine(a, 1)], { reason: 'correction', warehouse_id: world.warehouses[1], internal_code: code });
    const viewer = world.as('viewer');
    const all = await viewer.get('/api/stock/adjustments').expect(200);
    expect(all.body.data.map((d: { id: number }) => d.id)).to.deep.equal([second.id, first.id]);
    expect(all.body.meta).to.include({ total: 2, per_page: 25 });
    const ids = async (query: string) => (await viewer.get(`/api/stock/adjustments?${query}`).expect(200)).body.data.map((d: { id: number }) => d.id);
    expect(await ids(`warehouse_id=${world.warehouses[0]}`)).to.deep.equal([first.id]);
    expect(await ids('reason=correction')).to.deep.equal([second.id]);
    expect(await ids(`internal_code=${code}`)).to.deep.equal([second.id]);
    expect(await ids(`updated_since=${encodeURIComponent(second.updated_at)}`)).to.deep.equal([second.id]);
    expect(await ids('updated_since=2999-01-01T00:00:00Z')).to.deep.equal([]);
  });

  it('When one is read by id, Then it answers as created; an unknown id, or one of another client, is a 404', async () => {
    const made = await adjust(world, [deltaLine(world.articles.client, 1)], { reason: 'found' });
    const res = await world.as('viewer').get(`/api/stock/adjustments/${made.id}`).expect(200);
    expect(res.body.data).to.deep.equal(made);
    const missing = await world.as('viewer').get('/api/stock/adjustments/2147483000').expect(404);
    expect(missing.body.message).to.equal('Stock adjustment 2147483000 was not found.');
    await world.as('otherClientAdmin').get(`/api/stock/adjustments/${made.id}`).expect(404);
  });
});
