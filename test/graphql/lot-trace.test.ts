/**
 * GraphQL `lot_trace(article_id, lot)`: what GET /api/lots/trace answers for the same lot, every
 * field (receptions, shipments with their order and partner, deliveries, returns, transfers,
 * adjustments, balances); the same refusals as BAD_USER_INPUT on the argument; FORBIDDEN when the
 * stock module is off.
 */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { dayFromToday, receiveLots, trackedArticle } from '../fixtures/lots.js';
import { createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';
import { adjust } from '../fixtures/stock-adjustments.js';
import { transfer } from '../fixtures/stock-transfers.js';

const MOVEMENT = 'movement_id created_at warehouse_id stock_type expiry_date delta document { type id }';
const BALANCE = 'id client_3pl_id warehouse_id article_id article_code stock_type lot expiry_date quantity reserved available backordered updated_at';
const TRACE = `article_id article_code client_3pl_id lot receptions { ${MOVEMENT} } returns { ${MOVEMENT} } adjustments { ${MOVEMENT} } transfers { ${MOVEMENT} }
  shipments { ${MOVEMENT} shipment_id sales_order_id sales_order_internal_code partner_id partner_name tracking_number shipped_at } balances { ${BALANCE} }`;

describe('POST /graphql: lot_trace', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const graphql = (query: string, w = world) => w.as('viewer').post('/graphql').send({ query });

  it('When a lot was received, shipped, delivered, returned, transferred and adjusted, Then lot_trace answers what GET /api/lots/trace answers, field for field', async () => {
    const [w1] = world.warehouses as [number, number];
    const a = await trackedArticle(world);
    const lot = unique('L-');
    const expiry = dayFromToday(30);
    await receiveLots(world, a, [{ quantity: 20, lot, expiry_date: expiry }]);
    const shipped = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
    await moveThrough(world, shipped.id, ['picking']);
    await ship(world, shipped, [[0, 3]], { tracking_number: unique('TRK-'), carrier: 'DHL' });
    const delivered = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 2 }]);
    await moveThrough(world, delivered.id, ['picking', 'picked', 'delivered']);
    await world
      .as('operator')
      .post('/api/returns')
      .send({ partner_id: world.partners.client, warehouse_id: w1, sales_order_id: shipped.id, items: [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 1, lot, expiry_date: expiry }] })
      .expect(201);
    const place = (stock_type: 'STOC_OK' | 'STOC_QUARANTINE') => ({ warehouse_id: w1, stock_type });
    await transfer(world, [{ article_id: a.id, um3pl: 'BUC', quantity_um3pl: 4, lot, expiry_date: expiry, from: place('STOC_OK'), to: place('STOC_QUARANTINE') }]);
    await adjust(world, [{ article_id: a.id, um3pl: 'BUC', delta_um3pl: -1, lot, expiry_date: expiry }], { reason: 'damage' });

    const rest = (await world.as('viewer').get(`/api/lots/trace?article_id=${a.id}&lot=${encodeURIComponent(lot)}`).expect(200)).body.data;
    expect([rest.receptions, rest.shipments, rest.returns, rest.transfers, rest.adjustments, rest.balances].map((list: unknown[]) => list.length)).to.deep.equal([1, 2, 1, 2, 1, 2]);
    const res = await graphql(`{ lot_trace(article_id: ${a.id}, lot: "${lot}") { ${TRACE} } }`).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    expect(res.body.data.lot_trace).to.deep.equal(rest);
  });

  it('When the article tracks no lots, is out of scope, or the lot is empty or too long, Then BAD_USER_INPUT on the argument, as REST answers 422', async () => {
    const foreign = await trackedArticle(world, world.otherClient.id);
    const cases: Array<[string, string, string]> = [
      [`article_id: ${world.articles.client.id}, lot: "L1"`, 'article_id', 'does not track lots'],
      [`article_id: ${foreign.id}, lot: "L1"`, 'article_id', 'not an article in scope'],
      ['article_id: 0, lot: "L1"', 'article_id', 'The article_id argument must be at least 1.'],
      [`article_id: ${foreign.id}, lot: ""`, 'lot', 'The lot argument must not be empty.'],
      [`article_id: ${foreign.id}, lot: "${'L'.repeat(65)}"`, 'lot', 'The lot argument must not be longer than 64 characters.'],
    ];
    for (const [args, argument, message] of cases) {
      const res = await graphql(`{ lot_trace(${args}) { lot } }`).expect(200);
      expect(res.body.errors?.[0]?.extensions?.code, args).to.equal('BAD_USER_INPUT');
      expect(res.body.errors[0].extensions.errors[argument][0], args).to.include(message);
    }
  });

  it('When the stock module is off, Then lot_trace answers FORBIDDEN (HTTP 403)', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['stock'] });
    const res = await graphql(`{ lot_trace(article_id: ${off.articles.client.id}, lot: "L1") { lot } }`, off).expect(403);
    expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
  });
});
