/** GET /api/events with shipments: shipment.created carries the shipment, and belongs to the outbound module. */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { pickingOrder } from '../fixtures/shipments.js';
import { ship } from '../fixtures/sales-orders.js';

interface FeedEvent {
  id: string;
  type: string;
  company_id: number;
  data: Record<string, unknown>;
}

describe('GET /api/events', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const feed = async (types: string): Promise<FeedEvent[]> =>
    ((await world.as('providerAdmin').get(`/api/events?per_page=500&types=${types}`).expect(200)).body.data as FeedEvent[]).filter((e) => e.company_id === world.client.id);

  it("When an order ships, Then shipment.created carries the shipment as GET shows it, with the order's status change; with the outbound module off both are left out and stock.changed stays", async () => {
    const order = await pickingOrder(world, world.client.id);
    const shipment = await ship(world, { id: order.id, items: [{ id: order.itemId }] }, undefined, { carrier: 'DHL', tracking_number: 'EVT-1' });
    const types = 'shipment.created,sales_order.status_changed,stock.changed';
    const events = (await feed(types)).filter((e) => e.data.id === shipment.id || e.data.id === order.id || e.data.article_id === world.articles.client.id);
    const created = events.filter((e) => e.type === 'shipment.created');
    expect(created.map((e) => e.data)).to.deep.equal([(await world.as('viewer').get(`/api/shipments/${shipment.id}`).expect(200)).body.data]);
    expect(events.filter((e) => e.type === 'sales_order.status_changed' && e.data.id === order.id).map((e) => e.data.status)).to.deep.equal(['picking', 'delivered']);

    const outbound = () => h.db('company_modules').where({ company_id: world.client.id, module: 'outbound' });
    await outbound().update({ active: false });
    try {
      const seen = await feed(types);
      expect(seen.filter((e) => e.type !== 'stock.changed')).to.deep.equal([]);
      expect(seen.some((e) => e.type === 'stock.changed' && (e.data.document as { type: string } | null)?.type === 'shipment')).to.equal(true);
    } finally {
      await outbound().update({ active: true });
    }
  });
});
