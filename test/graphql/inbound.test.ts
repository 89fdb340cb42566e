/** GraphQL stock, purchase_orders and receptions: the same rows as REST for the scope, keyset paging, limits and modules. */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { makeArticle } from '../fixtures/articles.js';
import { createOrderOf } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';

const STOCK = 'id client_3pl_id warehouse_id article_id article_code stock_type lot expiry_date quantity reserved available backordered updated_at';
const PO = `id client_3pl_id partner_id internal_code status notes external_reference created_at updated_at
  items { id article_id article_code um3pl quantity_um3pl received_quantity_um3pl }`;
const RECEPTION = `id client_3pl_id purchase_order_id warehouse_id internal_code notes external_reference created_at updated_at
  items { id po_item_id article_id article_code um3pl quantity_um3pl lot expiry_date }`;

type Agent = ReturnType<World['as']>;
type Row = { id: number } & Record<string, unknown>;

describe('POST /graphql: stock, purchase_orders and receptions', () => {
  let h: Harness;
  let world: World;
  const orders: Record<'partial' | 'open' | 'received' | 'other', number> = { partial: 0, open: 0, received: 0, other: 0 };
  let kgArticle: number;

  const gql = (agent: Agent, text: string, variables?: object): Test => agent.post('/graphql').send({ query: text, variables });
  const data = async (agent: Agent, text: string, variables?: object): Promise<Record<string, Row[]>> => {
    const res = await gql(agent, text, variables).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data;
  };
  /** Every row of a REST list (per_page as given), by id ascending like the GraphQL keyset. */
  const rest = async (agent: Agent, path: string): Promise<Row[]> => {
    const res = await agent.get(path).expect(200);
    expect(res.body.meta.total).to.equal(res.body.data.length);
    return [...(res.body.data as Row[])].sort((a, b) => a.id - b.id);
  };

  async function order(clientId: number, lines: Array<[number, string, number]>, receipts: Array<[number, number, number]>): Promise<number> {
    const po = await createOrderOf(world, clientId, lines.map(([article_id, um3pl, quantity_um3pl]) => ({ article_id, um3pl, quantity_um3pl })));
    for (const [line, warehouse, quantity] of receipts) {
      await receive(world.as('providerAdmin', clientId), po.id, warehouse, [[po.items[line]!.id, quantity]], { internal_code: unique('REC-') });
    }
    return po.id;
  }

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    kgArticle = (await makeArticle(world, world.client.id, { um3pl: 'KG', prefix: 'GQL-KG-' })).id;
    const [wh1, wh2] = world.warehouses as [number, number];
    const buc = world.articles.client.id;
    orders.partial = await order(world.client.id, [[buc, 'BUC', 10], [kgArticle, 'KG', 5]], [[0, wh1, 4], [1, wh2, 2.5], [0, wh2, 1]]);
    orders.open = await order(world.client.id, [[buc, 'BUC', 3]], []);
    orders.received = await order(world.client.id, [[buc, 'BUC', 2]], [[0, wh1, 2]]);
    orders.other = await order(world.otherClient.id, [[world.articles.otherClient.id, 'BUC', 6]], [[0, wh1, 6]]);
  });

  describe('the same data as REST', () => {
    it('When stock is queried by a client and by the provider, Then each sees exactly its REST rows', async () => {
      for (const agent of [world.as('viewer'), world.as('providerAdmin'), world.as('otherClientAdmin')]) {
        const rows = (await data(agent, `{ stock(limit: 200) { ${STOCK} } }`)).stock!;
        expect(rows).to.deep.equal(await rest(agent, '/api/stock?per_page=200'));
      }
      const provider = (await data(world.as('providerAdmin'), '{ stock { client_3pl_id quantity } }')).stock!;
      expect(provider.map((r) => `${r.client_3pl_id}:${r.quantity}`)).to.deep.equal([
        `${world.client.id}:6`,
        `${world.client.id}:2.5`,
        `${world.client.id}:1`,
        `${world.otherClient.id}:6`,
      ]);
    });

    it('When stock is filtered by article_id and warehouse_id, Then it matches the REST filters', async () => {
      const agent = world.as('viewer');
      const byArticle = (await data(agent, `{ stock(article_id: ${kgArticle}) { ${STOCK} } }`)).stock!;
      expect(byArticle).to.deep.equal(await rest(agent, `/api/stock?article_id=${kgArticle}`));
      expect(byArticle.map((r) => r.quantity)).to.deep.equal([2.5]);
      const byWarehouse = (await data(agent, `{ stock(warehouse_id: ${world.warehouses[1]}) { ${STOCK} } }`)).stock!;
      expect(byWarehouse).to.deep.equal(await rest(agent, `/api/stock?warehouse_id=${world.warehouses[1]}`));
      expect(byWarehouse).to.have.length(2);
    });

    it('When purchase orders are queried, with and without status, Then they match REST', async () => {
      const agent = world.as('viewer');
      const all = (await data(agent, `{ purchase_orders(limit: 100) { ${PO} } }`)).purchase_orders!;
      expect(all).to.deep.equal(await rest(agent, '/api/purchase-orders?per_page=100'));
      expect(all.map((o) => o.id)).to.deep.equal([orders.partial, orders.open, orders.received]);
      for (const [status, expected] of [['open', [orders.open]], ['partially_received', [orders.partial]], ['received', [orders.received]], ['cancelled', []]] as const) {
        const rows = (await data(agent, `query($s: PurchaseOrderStatus) { purchase_orders(status: $s) { ${PO} } }`, { s: status })).purchase_orders!;
        expect(rows, status).to.deep.equal(await rest(agent, `/api/purchase-orders?status=${status}`));
        expect(rows.map((o) => o.id), status).to.deep.equal(expected);
      }
      const provider = (await data(world.as('providerAdmin'), '{ purchase_orders { id } }')).purchase_orders!;
      expect(provider.map((o) => o.id)).to.deep.equal([orders.partial, orders.open, orders.received, orders.other]);
    });

    it('When receptions are queried, with and without purchase_order_id, Then they match REST', async () => {
      const agent = world.as('viewer');
      const all = (await data(agent, `{ receptions(limit: 100) { ${RECEPTION} } }`)).receptions!;
      expect(all).to.deep.equal(await rest(agent, '/api/receptions?per_page=100'));
      expect(all).to.have.length(4);
      const ofOrder = (await data(agent, `{ receptions(purchase_order_id: ${orders.partial}) { ${RECEPTION} } }`)).receptions!;
      expect(ofOrder).to.deep.equal(await rest(agent, `/api/receptions?purchase_order_id=${orders.partial}`));
      expect(ofOrder.map((r) => (r.items as Array<{ quantity_um3pl: number }>)[0]!.quantity_um3pl)).to.deep.equal([4, 2.5, 1]);
      const foreign = (await data(agent, `{ receptions(purchase_order_id: ${orders.other}) { id } }`)).receptions!;
      expect(foreign).to.deep.equal([]);
    });
  });

  describe('after', () => {
    const cases: Array<[string, string, number]> = [
      ['stock', 'id', 4],
      ['purchase_orders', 'id', 4],
      ['receptions', 'id', 5],
    ];
    for (const [field, selection, total] of cases) {
      it(`When ${field} is paged with limit 2 and after, Then the pages hold ascending ids with nothing missed or repeated`, async () => {
        const agent = world.as('providerAdmin');
        const everything = (await data(agent, `{ ${field}(limit: 100) { ${selection} } }`))[field]!.map((r) => r.id);
        expect(everything).to.have.length(total);
        const seen: number[] = [];
        let after: number | null = null;
        for (let page = 0; page < 5; page++) {
          const rows: Row[] = (await data(agent, `query($after: Int) { ${field}(limit: 2, after: $after) { ${selection} } }`, { after }))[field]!;
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
  });

  describe('limits', () => {
    const cases: Array<[string, number]> = [
      ['stock', 200],
      ['purchase_orders', 100],
      ['receptions', 100],
    ];
    for (const [field, max] of cases) {
      it(`When ${field} is asked for more than ${max} or fewer than 1, Then the field fails with BAD_USER_INPUT`, async () => {
        for (const limit of [max + 1, 0]) {
          const res = await gql(world.as('viewer'), `{ ${field}(limit: ${limit}) { id } }`).expect(200);
          expect(res.body.data, String(limit)).to.equal(null);
          expect(res.body.errors).to.have.length(1);
          expect(res.body.errors[0]).to.deep.include({ message: `The limit argument must be from 1 to ${max}.`, path: [field] });
          expect(res.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
        }
        await data(world.as('viewer'), `{ ${field}(limit: ${max}) { id } }`);
      });
    }
  });

  describe('modules', () => {
    it('When the stock module is off, Then stock answers FORBIDDEN with HTTP 403 while purchase orders still resolve', async () => {
      const off = await createWorld(h.app, h.db, { modulesOff: ['stock'] });
      const res = await gql(off.as('viewer'), '{ stock { id } }').expect(403);
      expect(res.body.errors[0].message).to.equal(`The stock module is not active for company ${off.client.name}.`);
      expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
      expect((await data(off.as('viewer'), '{ purchase_orders { id } receptions { id } }')).purchase_orders).to.deep.equal([]);
    });

    for (const field of ['purchase_orders', 'receptions']) {
      it(`When the inbound module is off, Then ${field} answers FORBIDDEN with HTTP 403 while stock still resolves`, async () => {
        const off = await createWorld(h.app, h.db, { modulesOff: ['inbound'] });
        const res = await gql(off.as('viewer'), `{ ${field} { id } }`).expect(403);
        expect(res.body.errors[0].message).to.equal(`The inbound module is not active for company ${off.client.name}.`);
        expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
        expect((await data(off.as('viewer'), '{ stock { id } }')).stock).to.deep.equal([]);
      });
    }
  });
});
