/** GET /api/shipments and GET /api/shipments/{id}: scope, filters, pages and the single read. */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { pickingOrder, shipmentOf } from '../fixtures/shipments.js';
import { ship, type Shipment } from '../fixtures/sales-orders.js';

const INVALID = 'The given data was invalid.';

describe('Reading shipments', () => {
  let h: Harness;
  let world: World;
  let other: World;
  /** Of the world's client, oldest first: two of one order, one of another. */
  let first: Shipment;
  let second: Shipment;
  let third: Shipment;
  let orderId: number;
  /** Of the world's other client, and of another provider's client. */
  let sibling: Shipment;
  let foreign: Shipment;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    const shipOf = async (extra: Record<string, unknown>) => {
      const order = await pickingOrder(world, world.client.id);
      return { orderId: order.id, shipment: await ship(world, { id: order.id, items: [{ id: order.itemId }] }, [[0, 1]], extra) };
    };
    ({ orderId, shipment: first } = await shipOf({ carrier: 'DHL', tracking_number: 'TRACK-A', tracking_url: 'https://dhl.example/a' }));
    ({ shipment: second } = await shipOf({ carrier: 'UPS', tracking_number: 'track-a' }));
    ({ shipment: third } = await shipOf({ tracking_number: 'TRACK-B' }));
    sibling = await shipmentOf(world, world.otherClient.id);
    foreign = await shipmentOf(other, other.client.id);
  });

  const ids = (body: { data: Array<{ id: number }> }) => body.data.map((s) => s.id);
  const list = (query: string, actor: Parameters<World['as']>[0] = 'viewer', company?: number | null) => world.as(actor, company).get(`/api/shipments${query}`).expect(200);

  describe('GET /api/shipments', () => {
    it("When a client's viewer lists, Then it sees exactly its client's shipments, newest first, as GET shows each", async () => {
      const res = await list('');
      expect(ids(res.body)).to.deep.equal([third.id, second.id, first.id]);
      expect(res.body.meta).to.include({ total: 3, current_page: 1, from: 1, to: 3, last_page: 1, per_page: 25 });
      expect(res.body.data).to.deep.equal([third, second, first]);
      for (const shipment of [first, second, third]) expect((await world.as('viewer').get(`/api/shipments/${shipment.id}`).expect(200)).body.data).to.deep.equal(shipment);
    });

    it("When the provider lists in its own scope, Then it sees both clients' shipments, and no other provider's", async () => {
      const res = await list('?per_page=100', 'providerAdmin', world.provider.id);
      expect(ids(res.body)).to.include.members([first.id, second.id, third.id, sibling.id]);
      expect(ids(res.body)).to.not.include(foreign.id);
    });

    it('When pages and filters are asked for, Then per_page splits the list, sales_order_id and tracking_number (exact, case-sensitive) narrow it, and updated_since is inclusive', async () => {
      const page = await list('?per_page=2&page=2');
      expect(ids(page.body)).to.deep.equal([first.id]);
      expect(page.body.meta).to.include({ total: 3, last_page: 2, per_page: 2, current_page: 2 });
      expect(ids((await list(`?sales_order_id=${orderId}`)).body)).to.deep.equal([first.id]);
      expect(ids((await list('?tracking_number=TRACK-A')).body)).to.deep.equal([first.id]);
      expect(ids((await list('?tracking_number=track-a')).body)).to.deep.equal([second.id]);
      expect(ids((await list('?tracking_number=TRACK')).body)).to.deep.equal([]);
      expect(ids((await list(`?updated_since=${second.updated_at}`)).body)).to.deep.equal([third.id, second.id]);
      expect(ids((await list(`?updated_since=${new Date(Date.now() + 60_000).toISOString()}`)).body)).to.deep.equal([]);
    });

    it('When a filter is malformed, Then it answers 422 on that filter', async () => {
      const res = await world.as('viewer').get('/api/shipments?sales_order_id=abc&updated_since=yesterday').expect(422);
      expect(res.body.message).to.equal(INVALID);
      expect(res.body.errors).to.have.all.keys('sales_order_id', 'updated_since');
      expect((await world.as('viewer').get('/api/shipments?tracking_number=').expect(422)).body.errors).to.have.all.keys('tracking_number');
    });
  });

  describe('GET /api/shipments/{id}', () => {
    it("When the shipment is the sibling client's, another provider's or unknown, Then 404", async () => {
      for (const id of [sibling.id, foreign.id, 99_999_999]) {
        expect((await world.as('viewer').get(`/api/shipments/${id}`).expect(404)).body).to.deep.equal({ message: `Shipment ${id} was not found.` });
      }
      expect((await world.as('providerAdmin', world.otherClient.id).get(`/api/shipments/${sibling.id}`).expect(200)).body.data).to.deep.equal(sibling);
    });
  });
});
