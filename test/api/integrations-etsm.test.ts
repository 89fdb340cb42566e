/** The reception integration: /api/integrations/etsm/* with the shared ETSM_TOKEN. */
import { expect } from 'chai';
import { setModules } from '../../db/seeds/builders.js';
import { api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { buildApp, ETSM_TEST_TOKEN, harness, MDM_TEST_TOKEN, testConfig, type Harness } from '../helpers/harness.js';
import { makeArticle } from '../fixtures/articles.js';
import { balance, eventsOf, movements } from '../fixtures/probes.js';
import { createOrder } from '../fixtures/purchase-orders.js';

const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const NOT_CONFIGURED = { message: 'The etsm integration is not configured.' };
const FIELD = 'selected_items.0.quantity_um3pl';
const RECEPTIONS = '/api/integrations/etsm/receptions';

let shared: Promise<World> | undefined;
const sharedWorld = (h: Harness): Promise<World> => (shared ??= createWorld(h.app, h.db));

describe('GET /api/integrations/etsm/ping', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await sharedWorld(h);
  });

  it('When the shared token is sent, Then it answers ok for etsm', async () => {
    await api(h.app, { token: ETSM_TEST_TOKEN }).get('/api/integrations/etsm/ping').expect(200, { ok: true, integration: 'etsm' });
  });

  const wrong: Array<[string, () => string | undefined]> = [
    ['no token', () => undefined],
    ['a wrong token', () => `${ETSM_TEST_TOKEN}x`],
    ['a prefix of the token', () => ETSM_TEST_TOKEN.slice(0, -1)],
    ['the master-data integration token', () => MDM_TEST_TOKEN],
    ["an admin's personal access token", () => world.users.providerAdmin.token],
    ["a super-admin's personal access token", () => world.users.superAdmin.token],
  ];
  for (const [what, token] of wrong) {
    it(`When ${what} is sent, Then it answers 401`, async () => {
      await api(h.app, { token: token() }).get('/api/integrations/etsm/ping').expect(401, UNAUTHENTICATED);
    });
  }
});

describe('The etsm integration without ETSM_TOKEN', () => {
  let off: Harness;
  let world: World;

  before(async () => {
    off = await buildApp({ config: testConfig({ ETSM_TOKEN: '' }) });
    world = await sharedWorld(await harness());
  });

  it('When the ping or a reception is sent, with or without a token, Then both answer 503 and nothing is received', async () => {
    const receptions = Number((await off.db('receptions').where('company_id', world.client.id).count({ n: '*' }).first())!.n);
    for (const token of [ETSM_TEST_TOKEN, 'some-other-token', '', undefined]) {
      const agent = api(off.app, { token: token || undefined, company: world.client.id });
      await agent.get('/api/integrations/etsm/ping').expect(503, NOT_CONFIGURED);
      await agent
        .post(RECEPTIONS)
        .send({ purchase_order_id: 1, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: 1, quantity_um3pl: 1 }] })
        .expect(503, NOT_CONFIGURED);
    }
    expect(Number((await off.db('receptions').where('company_id', world.client.id).count({ n: '*' }).first())!.n)).to.equal(receptions);
  });
});

describe('POST /api/integrations/etsm/receptions', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await sharedWorld(h);
  });

  const etsm = (company?: number) => api(h.app, { token: ETSM_TEST_TOKEN, company });

  /** A fresh article and a purchase order of `ordered` of it, made through REST. */
  async function freshOrder(ordered = 10): Promise<{ articleId: number; code: string; orderId: number; itemId: number }> {
    const { id: articleId, code } = await makeArticle(world, world.client.id, { prefix: 'ETSM-' });
    const order = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: articleId, um3pl: 'BUC', quantity_um3pl: ordered }]);
    return { articleId, code, orderId: order.id, itemId: order.items[0]!.id };
  }

  const body = (orderId: number, itemId: number, quantity: number | string, extra: object = {}) => ({
    purchase_order_id: orderId,
    warehouse_id: world.warehouses[1],
    selected_items: [{ po_item_id: itemId, quantity_um3pl: quantity }],
    ...extra,
  });

  const receptionsOf = (orderId: number) => h.db('receptions').where('purchase_order_id', orderId).select('id');
  const balanceOf = (articleId: number): Promise<number> => balance(h.db, { clientId: world.client.id, warehouseId: world.warehouses[1]!, articleId });
  const eventsAbout = async (type: string, match: (data: Record<string, unknown>) => boolean) => (await eventsOf(h.db, world.client.id, type)).filter(match);

  it('When a reception is sent with the client as X-Company-Id, Then it is stored like POST /api/receptions, stock rises and events are recorded', async () => {
    const { articleId, code, orderId, itemId } = await freshOrder();
    const res = await etsm(world.client.id).post(RECEPTIONS).send(body(orderId, itemId, '2,0', { internal_code: unique('REC-'), external_reference: 'ETSM-42' })).expect(201);
    expect(res.body.data).to.deep.include({ client_3pl_id: world.client.id, purchase_order_id: orderId, warehouse_id: world.warehouses[1], external_reference: 'ETSM-42', notes: null });
    expect(res.body.data.items).to.have.length(1);
    expect(res.body.data.items[0]).to.deep.include({ po_item_id: itemId, article_id: articleId, article_code: code, um3pl: 'BUC', quantity_um3pl: 2 });

    expect(await balanceOf(articleId)).to.equal(2000);
    const moved = await movements(h.db, { article_id: articleId });
    expect(moved).to.have.length(1);
    const { delta, cause, document_kind, document_id, user_id } = moved[0]!;
    expect({ delta, cause, document_kind, document_id, user_id }).to.deep.equal({
      delta: 2000,
      cause: 'reception',
      document_kind: 'reception',
      document_id: res.body.data.id,
      user_id: null,
    });

    const read = await world.as('viewer').get(`/api/receptions/${res.body.data.id}`).expect(200);
    expect(read.body.data).to.deep.equal(res.body.data);
    const order = await world.as('viewer').get(`/api/purchase-orders/${orderId}`).expect(200);
    expect(order.body.data).to.deep.include({ status: 'partially_received' });
    expect(order.body.data.items[0]).to.include({ received_quantity_um3pl: 2 });

    expect(await eventsAbout('reception.created', (d) => d.id === res.body.data.id)).to.deep.equal([res.body.data]);
    expect(await eventsAbout('stock.changed', (d) => d.article_id === articleId)).to.have.length(1).and.nested.property('[0].quantity', 2);
    expect(await eventsAbout('purchase_order.updated', (d) => d.id === orderId)).to.have.length(1).and.nested.property('[0].status', 'partially_received');
  });

  it('When X-Company-Id is missing, Then it answers 400 and receives nothing', async () => {
    const { orderId, itemId } = await freshOrder();
    await etsm().post(RECEPTIONS).send(body(orderId, itemId, 1)).expect(400, { message: 'The X-Company-Id header is required.' });
    expect(await receptionsOf(orderId)).to.deep.equal([]);
  });

  it('When X-Company-Id names no company, Then it answers 403', async () => {
    const { orderId, itemId } = await freshOrder();
    const unknown = 2_000_000_000;
    await etsm(unknown).post(RECEPTIONS).send(body(orderId, itemId, 1)).expect(403, { message: `You do not have access to company ${unknown}.` });
    expect(await receptionsOf(orderId)).to.deep.equal([]);
  });

  it("When X-Company-Id is another client's, Then the order is not in scope (422 on purchase_order_id)", async () => {
    const { orderId, itemId } = await freshOrder();
    const res = await etsm(world.otherClient.id).post(RECEPTIONS).send(body(orderId, itemId, 1)).expect(422);
    expect(res.body.errors).to.have.all.keys('purchase_order_id');
    expect(await receptionsOf(orderId)).to.deep.equal([]);
  });

  it("When X-Company-Id is the provider's, Then it answers 422 on the header (the integration acts for one client, with its modules) and receives nothing", async () => {
    const { orderId, itemId } = await freshOrder();
    const res = await etsm(world.provider.id).post(RECEPTIONS).send(body(orderId, itemId, 1)).expect(422);
    expect(res.body.errors).to.deep.equal({
      'X-Company-Id': [`The X-Company-Id header of the reception integration must be the id of a client company; company ${world.provider.id} is a provider.`],
    });
    expect(await receptionsOf(orderId)).to.deep.equal([]);
  });

  it('When a personal access token is sent instead of the shared token, Then it answers 401', async () => {
    const { orderId, itemId } = await freshOrder();
    await api(h.app, { token: world.users.providerAdmin.token, company: world.client.id }).post(RECEPTIONS).send(body(orderId, itemId, 1)).expect(401, UNAUTHENTICATED);
    expect(await receptionsOf(orderId)).to.deep.equal([]);
  });

  it('When a fractional quantity is sent for a whole-number unit, Then it answers 422 on the line and nothing changes', async () => {
    const { articleId, orderId, itemId } = await freshOrder();
    const res = await etsm(world.client.id).post(RECEPTIONS).send(body(orderId, itemId, '1,5')).expect(422);
    expect(res.body).to.deep.equal({
      message: 'The given data was invalid.',
      errors: { [FIELD]: ['The quantity must be a whole number: unit BUC is counted in whole units.'] },
    });
    expect(await receptionsOf(orderId)).to.deep.equal([]);
    expect(await balanceOf(articleId)).to.equal(0);
  });

  it('When more than remains is sent, Then it answers 422 on the line and nothing changes', async () => {
    const { articleId, orderId, itemId } = await freshOrder();
    await etsm(world.client.id).post(RECEPTIONS).send(body(orderId, itemId, 4)).expect(201);
    const res = await etsm(world.client.id).post(RECEPTIONS).send(body(orderId, itemId, 7)).expect(422);
    expect(res.body.errors).to.deep.equal({ [FIELD]: ['Receiving 7 would exceed the 6 remaining on this line (10 ordered).'] });
    expect(await receptionsOf(orderId)).to.have.length(1);
    expect(await balanceOf(articleId)).to.equal(4000);
    expect(Number((await h.db('purchase_order_items').where('id', itemId).first()).received_quantity)).to.equal(4000);
  });

  it('When the same Idempotency-Key and body are sent again, Then the stored 201 is replayed and one reception exists', async () => {
    const { articleId, orderId, itemId } = await freshOrder();
    const key = unique('etsm-key-');
    const first = await etsm(world.client.id).post(RECEPTIONS).set('Idempotency-Key', key).send(body(orderId, itemId, 3)).expect(201);
    expect(first.headers['idempotent-replayed']).to.equal(undefined);
    const again = await etsm(world.client.id).post(RECEPTIONS).set('Idempotency-Key', key).send(body(orderId, itemId, 3)).expect(201);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect((await receptionsOf(orderId)).map((r) => r.id)).to.deep.equal([first.body.data.id]);
    expect(await balanceOf(articleId)).to.equal(3000);
    const other = await etsm(world.client.id).post(RECEPTIONS).set('Idempotency-Key', key).send(body(orderId, itemId, 2)).expect(422);
    expect(other.body.errors).to.have.all.keys('Idempotency-Key');
    expect(await receptionsOf(orderId)).to.have.length(1);
  });

  it('When the inbound module is off for the client, Then it answers 403 and receives nothing', async () => {
    const off = await createWorld(h.app, h.db);
    // The order is made through REST while the module is on; then the operator switches it off.
    const order = await createOrder(off.as('operator'), off.partners.supplier, [{ article_id: off.articles.client.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
    const [orderId, itemId] = [order.id, order.items[0]!.id];
    await setModules(h.db, off.client.id, ['inbound']);
    await etsm(off.client.id)
      .post(RECEPTIONS)
      .send({ purchase_order_id: orderId, warehouse_id: off.warehouses[0], selected_items: [{ po_item_id: itemId, quantity_um3pl: 1 }] })
      .expect(403, { message: `The inbound module is not active for company ${off.client.name}.` });
    expect(await receptionsOf(orderId)).to.deep.equal([]);
    expect(Number((await h.db('purchase_order_items').where('id', itemId).first()).received_quantity)).to.equal(0);
  });
});
