/** GraphQL shipments, shipment and SalesOrder.shipments: the same rows as REST for the scope, keyset paging, filters, limits, the module and the cost. */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { pickingOrder, shipmentOf } from '../fixtures/shipments.js';
import { ship, type Shipment } from '../fixtures/sales-orders.js';

const SHIPMENT = `id sales_order_id client_3pl_id carrier service tracking_number tracking_url shipped_at internal_code created_at updated_at
  items { id so_item_id article_id article_code um3pl quantity_um3pl lots { lot expiry_date quantity_um3pl } }`;
const ORDER = `id status on_hold hold_reason items { id quantity_um3pl delivered_quantity_um3pl } shipments { id carrier tracking_number tracking_url shipped_at }`;

type Agent = ReturnType<World['as']>;

describe('POST /graphql: shipments, shipment and SalesOrder.shipments', () => {
  let h: Harness;
  let world: World;
  let stranger: World;
  const made: Record<'first' | 'second' | 'sibling' | 'foreign', Shipment> = {} as never;
  let held: number;

  const gql = (agent: Agent, text: string, variables?: object): Test => agent.post('/graphql').send({ query: text, variables });
  const data = async (agent: Agent, text: string, variables?: object): Promise<Record<string, unknown>> => {
    const res = await gql(agent, text, variables).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return res.body.data;
  };
  const ids = (rows: unknown) => (rows as Array<{ id: number }>).map((r) => r.id);

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    stranger = await createWorld(h.app, h.db);
    const first = await pickingOrder(world, world.client.id);
    made.first = await ship(world, { id: first.id, items: [{ id: first.itemId }] }, undefined, { carrier: 'DHL', tracking_number: 'GQL-1', tracking_url: 'https://dhl.example/1', internal_code: 'DN-GQL-1' });
    const second = await pickingOrder(world, world.client.id);
    made.second = await ship(world, { id: second.id, items: [{ id: second.itemId }] }, undefined, { tracking_number: 'GQL-2' });
    made.sibling = await shipmentOf(world, world.otherClient.id);
    made.foreign = await shipmentOf(stranger, stranger.client.id);
    held = (await pickingOrder(world, world.client.id)).id;
    await world.as('operator').post(`/api/sales-orders/${held}/hold`).send({ reason: 'Credit check' }).expect(200);
  });

  it('When shipments are queried by a client, the provider and another tenant, Then each sees exactly its REST rows, by id ascending', async () => {
    const cases: Array<[Agent, number[]]> = [
      [world.as('viewer'), [made.first.id, made.second.id]],
      [world.as('providerAdmin'), [made.first.id, made.second.id, made.sibling.id]],
      [stranger.as('viewer'), [made.foreign.id]],
    ];
    for (const [agent, expected] of cases) {
      const rows = (await data(agent, `{ shipments(limit: 100) { ${SHIPMENT} } }`)).shipments;
      const rest = (await agent.get('/api/shipments?per_page=100').expect(200)).body.data as Shipment[];
      expect(rows).to.deep.equal([...rest].sort((a, b) => a.id - b.id));
      expect(ids(rows)).to.deep.equal(expected);
    }
  });

  it('When shipments are filtered and paged, Then sales_order_id and tracking_number narrow them and after pages by id', async () => {
    const agent = world.as('viewer');
    expect(ids((await data(agent, `{ shipments(sales_order_id: ${made.second.sales_order_id}) { id } }`)).shipments)).to.deep.equal([made.second.id]);
    expect(ids((await data(agent, '{ shipments(tracking_number: "GQL-1") { id } }')).shipments)).to.deep.equal([made.first.id]);
    expect(ids((await data(agent, `{ shipments(limit: 1, after: ${made.first.id}) { id } }`)).shipments)).to.deep.equal([made.second.id]);
    const res = await gql(agent, '{ shipments(limit: 101) { id } }').expect(200);
    expect(res.body.errors[0]).to.deep.include({ message: 'The limit argument must be from 1 to 100.' });
  });

  it("When one shipment is asked for, Then it is REST's body in scope and null for another client's, another tenant's or an unknown id", async () => {
    const viewer = world.as('viewer');
    const res = await data(viewer, `{ mine: shipment(id: ${made.first.id}) { ${SHIPMENT} } sibling: shipment(id: ${made.sibling.id}) { id } foreign: shipment(id: ${made.foreign.id}) { id } unknown: shipment(id: 99999999) { id } }`);
    expect(res.mine).to.deep.equal(made.first);
    expect([res.sibling, res.foreign, res.unknown]).to.deep.equal([null, null, null]);
  });

  it('When a sales order is asked for with its shipments and hold, Then they are what REST shows', async () => {
    const viewer = world.as('viewer');
    for (const id of [made.first.sales_order_id, held]) {
      const order = (await data(viewer, `{ sales_order(id: ${id}) { ${ORDER} } }`)).sales_order as Record<string, unknown>;
      const rest = (await viewer.get(`/api/sales-orders/${id}`).expect(200)).body.data;
      expect(order).to.deep.equal({
        id, status: rest.status, on_hold: rest.on_hold, hold_reason: rest.hold_reason, shipments: rest.shipments,
        items: rest.items.map((i: Record<string, unknown>) => ({ id: i.id, quantity_um3pl: i.quantity_um3pl, delivered_quantity_um3pl: i.delivered_quantity_um3pl })),
      });
    }
    expect(((await data(viewer, `{ sales_order(id: ${held}) { on_hold hold_reason } }`)).sales_order)).to.deep.equal({ on_hold: true, hold_reason: 'Credit check' });
    expect(((await data(viewer, `{ sales_order(id: ${made.first.sales_order_id}) { status shipments { id tracking_number } } }`)).sales_order)).to.deep.equal({
      status: 'delivered', shipments: [{ id: made.first.id, tracking_number: 'GQL-1' }],
    });
  });

  it('When a full page of 100 orders asks for everything, shipments included, Then it is answered within the cost limit', async () => {
    const everything = `id client_3pl_id partner_id source_warehouse_id stock_type internal_code status notes external_reference on_hold hold_reason created_at updated_at
      items { id article_id article_code um3pl quantity_um3pl delivered_quantity_um3pl lot } shipments { id carrier tracking_number tracking_url shipped_at }
      status_history { status at user { id name email } }`;
    const res = await gql(world.as('viewer'), `{ sales_orders(limit: 100) { ${everything} } }`).expect(200);
    expect(res.body.errors).to.equal(undefined);
    expect(res.body.data.sales_orders).to.have.length(3);
  });

  it('When the outbound module is off, Then shipments and shipment answer FORBIDDEN with HTTP 403', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['outbound'] });
    for (const field of ['shipments(limit: 5)', 'shipment(id: 1)']) {
      const res = await gql(off.as('viewer'), `{ ${field} { id } }`).expect(403);
      expect(res.body.errors[0].message).to.equal(`The outbound module is not active for company ${off.client.name}.`);
      expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
    }
  });
});
