/** GraphQL sales_orders, sales_order and returns: the same rows as REST for the scope, keyset paging, limits and modules. */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type Actor, type World } from '../helpers/factories.js';
import { expectApiTime } from '../fixtures/probes.js';
import { createOrderOf } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, createSalesOrderOf, moveThrough } from '../fixtures/sales-orders.js';

const SO = `id client_3pl_id partner_id source_warehouse_id stock_type internal_code status notes external_reference on_hold hold_reason created_at updated_at
  items { id article_id article_code um3pl quantity_um3pl delivered_quantity_um3pl lot }
  shipments { id carrier tracking_number tracking_url shipped_at }
  status_history { status at user { id name email } }`;
const RETURN = `id client_3pl_id partner_id warehouse_id sales_order_id internal_code reason created_at updated_at
  items { id article_id article_code um3pl quantity_um3pl stock_type lot expiry_date }`;

type Agent = ReturnType<World['as']>;
type Row = { id: number } & Record<string, unknown>;

describe('POST /graphql: sales_orders, sales_order and returns', () => {
  let h: Harness;
  let world: World;
  let stranger: World;
  const orders = { fresh: 0, picked: 0, delivered: 0, cancelled: 0, sibling: 0, foreign: 0 };
  const returns = { plain: 0, against: 0, second: 0, sibling: 0, foreign: 0 };

  const gql = (agent: Agent, text: string, variables?: object): Test => agent.post('/graphql').send({ query: text, variables });
  const data = async (agent: Agent, text: string, variables?: object): Promise<Record<string, Row[]>> => {
    const res = await gql(agent, text, variables).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data;
  };
  /** Every sales order of a REST list, by id ascending like the GraphQL keyset. */
  const restOrders = async (agent: Agent, query = ''): Promise<Row[]> => {
    const res = await agent.get(`/api/sales-orders?per_page=100${query}`).expect(200);
    expect(res.body.meta.total).to.equal(res.body.data.length);
    return [...(res.body.data as Row[])].sort((a, b) => a.id - b.id);
  };
  /** GET /api/returns (newest first) by id ascending. */
  const restReturns = async (agent: Agent): Promise<Row[]> => [...((await agent.get('/api/returns').expect(200)).body.data as Row[])].sort((a, b) => a.id - b.id);

  /**
   * A sales order of 2 of the client's article (its stock received first), made by the client's
   * operator (the provider for another client) and moved along `path` by `mover`.
   */
  async function order(w: World, clientId: number, path: string[], mover?: Actor): Promise<number> {
    const own = clientId === w.client.id;
    const article = own ? w.articles.client : w.articles.otherClient;
    const po = await createOrderOf(w, clientId, [buc(article, 2)]);
    await receive(w.as('providerAdmin', clientId), po.id, w.warehouses[1]!, [[po.items[0]!.id, 2]]);
    const extra = {
      source_warehouse_id: w.warehouses[1],
      notes: path.length === 1 ? 'Ring twice' : undefined,
      external_reference: path.length === 3 ? 'ERP-77' : undefined,
    };
    const so = own ? await createSalesOrder(w, [buc(article, 2)], extra) : await createSalesOrderOf(w, clientId, [buc(article, 2)], extra);
    if (mover) await moveThrough(w, so.id, path, mover);
    else await moveThrough(w, so.id, path, own ? 'operator' : 'providerAdmin', own ? undefined : clientId);
    return so.id;
  }

  async function createReturn(agent: Agent, body: object): Promise<number> {
    return (await agent.post('/api/returns').send(body).expect(201)).body.data.id;
  }

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    stranger = await createWorld(h.app, h.db);
    orders.fresh = await order(world, world.client.id, []);
    orders.picked = await order(world, world.client.id, ['picking', 'picked'], 'providerAdmin');
    orders.delivered = await order(world, world.client.id, ['picking', 'picked', 'delivered']);
    orders.cancelled = await order(world, world.client.id, ['cancelled']);
    orders.sibling = await order(world, world.otherClient.id, ['picking']);
    orders.foreign = await order(stranger, stranger.client.id, []);

    const base = { partner_id: world.partners.client, warehouse_id: world.warehouses[0] };
    const item = { article_id: world.articles.client.id, um3pl: 'BUC' };
    returns.plain = await createReturn(world.as('operator'), { ...base, internal_code: 'GQL-RET-1', items: [{ ...item, quantity_um3pl: 3 }] });
    returns.against = await createReturn(world.as('operator'), { ...base, sales_order_id: orders.delivered, reason: 'Dented', items: [{ ...item, quantity_um3pl: 1, stock_type: 'STOC_DEFECT' }, { ...item, quantity_um3pl: 1 }] });
    returns.sibling = await createReturn(world.as('otherClientAdmin'), { partner_id: world.partners.otherClientCustomer, warehouse_id: world.warehouses[1], items: [{ article_id: world.articles.otherClient.id, um3pl: 'BUC', quantity_um3pl: 2 }] });
    returns.second = await createReturn(world.as('providerAdmin', world.client.id), { ...base, warehouse_id: world.warehouses[1], items: [{ ...item, quantity_um3pl: 5, stock_type: 'STOC_QUARANTINE' }] });
    returns.foreign = await createReturn(stranger.as('operator'), { partner_id: stranger.partners.client, warehouse_id: stranger.warehouses[0], items: [{ article_id: stranger.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }] });
  });

  describe('the same data as REST', () => {
    it('When sales orders are queried by a client, the provider, a sibling client and another tenant, Then each sees exactly its REST rows', async () => {
      const cases: Array<[Agent, number[]]> = [
        [world.as('viewer'), [orders.fresh, orders.picked, orders.delivered, orders.cancelled]],
        [world.as('providerAdmin'), [orders.fresh, orders.picked, orders.delivered, orders.cancelled, orders.sibling]],
        [world.as('otherClientAdmin'), [orders.sibling]],
        [stranger.as('viewer'), [orders.foreign]],
      ];
      for (const [agent, ids] of cases) {
        const rows = (await data(agent, `{ sales_orders(limit: 100) { ${SO} } }`)).sales_orders!;
        expect(rows).to.deep.equal(await restOrders(agent));
        expect(rows.map((o) => o.id)).to.deep.equal(ids);
      }
    });

    it('When a delivered order is queried, Then its status history names the users who moved it', async () => {
      const rows = (await data(world.as('viewer'), `{ sales_orders(status: delivered) { ${SO} } }`)).sales_orders!;
      expect(rows.map((o) => o.id)).to.deep.equal([orders.delivered]);
      const history = rows[0]!.status_history as Array<{ status: string; at: string; user: { id: number; email: string; name: string } | null }>;
      expect(history.map((e) => [e.status, e.user?.id, e.user?.email])).to.deep.equal(
        ['new', 'picking', 'picked', 'delivered'].map((s) => [s, world.users.operator.id, world.users.operator.email]),
      );
      expect(history[0]!.user!.name).to.equal(`User ${world.users.operator.email}`);
      expectApiTime(history[0]!.at);
      const picked = (await data(world.as('viewer'), `{ sales_order(id: ${orders.picked}) { status_history { status user { id } } } }`)).sales_order as unknown as { status_history: unknown[] };
      expect(picked.status_history).to.deep.equal([
        { status: 'new', user: { id: world.users.operator.id } },
        { status: 'picking', user: { id: world.users.providerAdmin.id } },
        { status: 'picked', user: { id: world.users.providerAdmin.id } },
      ]);
    });

    it('When sales orders are filtered by status, Then they match the REST filter', async () => {
      const agent = world.as('viewer');
      const expected = { new: [orders.fresh], picking: [], picked: [orders.picked], delivered: [orders.delivered], cancelled: [orders.cancelled] };
      for (const [status, ids] of Object.entries(expected)) {
        const rows = (await data(agent, `query($s: SalesOrderStatus) { sales_orders(status: $s) { ${SO} } }`, { s: status })).sales_orders!;
        expect(rows, status).to.deep.equal(await restOrders(agent, `&status=${status}`));
        expect(rows.map((o) => o.id), status).to.deep.equal(ids);
      }
      const provider = (await data(world.as('providerAdmin'), '{ sales_orders(status: picking) { id } }')).sales_orders!;
      expect(provider.map((o) => o.id)).to.deep.equal([orders.sibling]);
    });

    it("When one sales order is asked for, Then it is REST's body in scope and null for another client's, another tenant's or an unknown id", async () => {
      const viewer = world.as('viewer');
      const query = `query($mine: Int!, $sibling: Int!, $foreign: Int!) {
        mine: sales_order(id: $mine) { ${SO} } sibling: sales_order(id: $sibling) { id } foreign: sales_order(id: $foreign) { id } unknown: sales_order(id: 99999999) { id } }`;
      const res = (await data(viewer, query, { mine: orders.delivered, sibling: orders.sibling, foreign: orders.foreign })) as unknown as Record<string, unknown>;
      expect(res.mine).to.deep.equal((await viewer.get(`/api/sales-orders/${orders.delivered}`).expect(200)).body.data);
      expect([res.sibling, res.foreign, res.unknown]).to.deep.equal([null, null, null]);

      const provider = world.as('providerAdmin');
      const byProvider = (await data(provider, `{ sales_order(id: ${orders.sibling}) { ${SO} } }`)).sales_order as unknown;
      expect(byProvider).to.deep.equal((await provider.get(`/api/sales-orders/${orders.sibling}`).expect(200)).body.data);
    });

    it('When returns are queried by a client, the provider, a sibling client and another tenant, Then each sees exactly its REST rows', async () => {
      const cases: Array<[Agent, number[]]> = [
        [world.as('viewer'), [returns.plain, returns.against, returns.second]],
        [world.as('providerAdmin'), [returns.plain, returns.against, returns.sibling, returns.second]],
        [world.as('providerAdmin', world.otherClient.id), [returns.sibling]],
        [world.as('otherClientAdmin'), [returns.sibling]],
        [stranger.as('viewer'), [returns.foreign]],
      ];
      for (const [agent, ids] of cases) {
        const rows = (await data(agent, `{ returns(limit: 100) { ${RETURN} } }`)).returns!;
        expect(rows).to.deep.equal(await restReturns(agent));
        expect(rows.map((r) => r.id)).to.deep.equal(ids);
      }
      const against = (await data(world.as('viewer'), `{ returns { id sales_order_id reason items { quantity_um3pl stock_type } } }`)).returns!.find((r) => r.id === returns.against);
      expect(against).to.deep.equal({ id: returns.against, sales_order_id: orders.delivered, reason: 'Dented', items: [{ quantity_um3pl: 1, stock_type: 'STOC_DEFECT' }, { quantity_um3pl: 1, stock_type: 'STOC_OK' }] });
    });
  });

  describe('after', () => {
    for (const [field, args] of [
      ['sales_orders', ''],
      ['sales_orders', ', status: delivered'],
      ['returns', ''],
    ] as const) {
      it(`When ${field}${args} is paged with limit 2 and after, Then the pages hold ascending ids with nothing missed or repeated`, async () => {
        const agent = world.as('providerAdmin');
        const everything = (await data(agent, `{ ${field}(limit: 100${args}) { id } }`))[field]!.map((r) => r.id);
        expect(everything.length).to.be.at.least(args ? 1 : 4);
        const seen: number[] = [];
        let after: number | null = null;
        for (let page = 0; page < 6; page++) {
          const rows: Row[] = (await data(agent, `query($after: Int) { ${field}(limit: 2, after: $after${args}) { id } }`, { after }))[field]!;
          if (rows.length === 0) break;
          expect(rows.length).to.be.at.most(2);
          if (after !== null) expect(rows[0]!.id).to.be.greaterThan(after);
          seen.push(...rows.map((r) => r.id));
          after = rows[rows.length - 1]!.id;
        }
        expect(seen).to.deep.equal(everything);
        expect([...seen].sort((a, b) => a - b)).to.deep.equal(seen);
      });
    }

    it('When after is the last id, Then the page is empty; when it is below every id, Then the page starts at the first', async () => {
      const agent = world.as('viewer');
      const last = (await data(agent, `{ sales_orders(after: ${orders.cancelled}) { id } returns(after: ${returns.second}) { id } }`)) as Record<string, Row[]>;
      expect(last).to.deep.equal({ sales_orders: [], returns: [] });
      const first = (await data(agent, '{ sales_orders(after: 0, limit: 1) { id } returns(after: 0, limit: 1) { id } }')) as Record<string, Row[]>;
      expect(first).to.deep.equal({ sales_orders: [{ id: orders.fresh }], returns: [{ id: returns.plain }] });
    });
  });

  describe('limits', () => {
    for (const field of ['sales_orders', 'returns']) {
      it(`When ${field} is asked for 101 or 0, Then the field fails with BAD_USER_INPUT; 100 is answered`, async () => {
        for (const limit of [101, 0]) {
          const res = await gql(world.as('viewer'), `{ ${field}(limit: ${limit}) { id } }`).expect(200);
          expect(res.body.data, String(limit)).to.equal(null);
          expect(res.body.errors).to.have.length(1);
          expect(res.body.errors[0]).to.deep.include({ message: 'The limit argument must be from 1 to 100.', path: [field] });
          expect(res.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
        }
        expect((await data(world.as('viewer'), `{ ${field}(limit: 100) { id } }`))[field]).to.have.length(field === 'returns' ? 3 : 4);
      });
    }
  });

  describe('modules', () => {
    for (const field of ['sales_orders(limit: 5)', 'sales_order(id: 1)']) {
      it(`When the outbound module is off, Then ${field} answers FORBIDDEN with HTTP 403 while returns still resolve`, async () => {
        const off = await createWorld(h.app, h.db, { modulesOff: ['outbound'] });
        const res = await gql(off.as('viewer'), `{ ${field} { id } }`).expect(403);
        expect(res.body.errors[0].message).to.equal(`The outbound module is not active for company ${off.client.name}.`);
        expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
        expect((await data(off.as('viewer'), '{ returns { id } }')).returns).to.deep.equal([]);
      });
    }

    it('When the returns module is off, Then returns answers FORBIDDEN with HTTP 403 while sales orders still resolve', async () => {
      const off = await createWorld(h.app, h.db, { modulesOff: ['returns'] });
      const res = await gql(off.as('viewer'), '{ returns { id } }').expect(403);
      expect(res.body.errors[0].message).to.equal(`The returns module is not active for company ${off.client.name}.`);
      expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
      expect((await data(off.as('viewer'), '{ sales_orders { id } sales_order(id: 1) { id } }')) as unknown).to.deep.equal({ sales_orders: [], sales_order: null });
    });
  });
});
