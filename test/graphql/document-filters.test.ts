/**
 * GraphQL's document lists take the filters of their REST lists: `purchase_orders` and
 * `sales_orders` partner_id, internal_code and updated_since (beside status); `receptions`,
 * `shipments` and `returns` updated_since (beside their document filters); `stock_adjustments`
 * and `stock_transfers` (new) warehouse, reason, internal code and updated_since. Each answers the rows
 * REST answers for the same filters (REST newest first, GraphQL by id: compared as sets of ids); a
 * filter that breaks REST's rules is BAD_USER_INPUT on its argument, as REST answers 422.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, moveThrough, ship } from '../fixtures/sales-orders.js';
import { createReturnOf } from '../fixtures/returns.js';
import { adjust, deltaLine } from '../fixtures/stock-adjustments.js';
import { transfer, transferLine } from '../fixtures/stock-transfers.js';

type Row = { id: number; updated_at?: string };
type Field = 'purchase_orders' | 'sales_orders' | 'receptions' | 'shipments' | 'returns' | 'stock_adjustments' | 'stock_transfers';

describe('POST /graphql: the filters of the document lists', () => {
  let h: Harness;
  let world: World;

  /** A millisecond after `time`. */
  const after = (time: string): string => new Date(Date.parse(time) + 1).toISOString();
  const sorted = (rows: Row[]): number[] => rows.map((r) => r.id).sort((a, b) => a - b);
  const rest = async (path: string): Promise<Row[]> => (await world.as('viewer').get(path).expect(200)).body.data as Row[];
  const graphql = async (field: Field, args: string): Promise<number[]> => {
    const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field}(${args}limit: 100) { id } }` }).expect(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    return sorted(res.body.data[field] as Row[]);
  };
  /** Each case: GraphQL arguments, REST query, the rows REST answers (so no case passes on an empty list by accident). */
  const agree = async (field: Field, path: string, cases: Array<[string, string, number]>): Promise<void> => {
    for (const [args, query, count] of cases) {
      const expected = await rest(`${path}?per_page=100&${query}`);
      expect(expected, `${path}?${query}`).to.have.length(count);
      expect(await graphql(field, args ? `${args}, ` : ''), `${field}(${args})`).to.deep.equal(sorted(expected));
    }
  };
  /** The oldest and newest updated_at of a REST list. */
  const span = async (path: string): Promise<[string, string]> => {
    const times = (await rest(`${path}?per_page=100`)).map((r) => r.updated_at!).sort();
    return [times[0]!, times[times.length - 1]!];
  };

  let article: { id: number; code: string };

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    article = world.articles.client;
    const operator = world.as('operator');
    const line = { article_id: article.id, um3pl: 'BUC', quantity_um3pl: 10 };
    const first = await createOrder(operator, world.partners.supplier, [line], { internal_code: 'PO-FILTER-A' });
    const second = await createOrder(operator, world.partners.supplier, [line], { internal_code: 'PO-FILTER-B' });
    await receive(operator, first.id, world.warehouses[0]!, [[first.items[0]!.id, 6]]);
    await receive(operator, second.id, world.warehouses[0]!, [[second.items[0]!.id, 4]]);
    const shipped = await createSalesOrder(world, [buc(article, 2)], { internal_code: 'SO-FILTER-A' });
    await createSalesOrder(world, [buc(article, 1)], { internal_code: 'SO-FILTER-B' });
    await moveThrough(world, shipped.id, ['picking', 'picked']);
    await ship(world, shipped, undefined, { tracking_number: 'TRK-FILTER-1' });
    await createReturnOf(world, world.client.id, [buc(article, 1)], { reason: 'Damaged', sales_order_id: shipped.id });
    await createReturnOf(world, world.client.id, [buc(article, 1)], { reason: 'Unwanted' });
    const [w1, w2] = world.warehouses as [number, number];
    await adjust(world, [deltaLine(article, 1)], { reason: 'found', internal_code: 'ADJ-FILTER-A', note: 'Found in aisle 4.' });
    await adjust(world, [deltaLine(article, 3)], { warehouse_id: w2, internal_code: 'ADJ-FILTER-B' });
    await transfer(world, [transferLine(article, 1, [w1, 'STOC_OK'], [w1, 'STOC_DEFECT'])], { internal_code: 'TRF-FILTER-A' });
    await transfer(world, [transferLine(article, 2, [w2, 'STOC_OK'], [w1, 'STOC_OK'])], { internal_code: 'TRF-FILTER-B' });
  });

  it('When purchase_orders or sales_orders are filtered by partner_id, internal_code or updated_since, Then they answer the rows the REST list answers', async () => {
    const [poOldest, poNewest] = await span('/api/purchase-orders');
    await agree('purchase_orders', '/api/purchase-orders', [
      ['', '', 2],
      [`partner_id: ${world.partners.supplier}`, `partner_id=${world.partners.supplier}`, 2],
      [`partner_id: ${world.partners.client}`, `partner_id=${world.partners.client}`, 0],
      ['internal_code: "PO-FILTER-B"', 'internal_code=PO-FILTER-B', 1],
      ['internal_code: "PO-FILTER"', 'internal_code=PO-FILTER', 0],
      [`updated_since: "${poOldest}"`, `updated_since=${poOldest}`, 2],
      [`updated_since: "${poNewest}"`, `updated_since=${poNewest}`, poOldest === poNewest ? 2 : 1],
      [`updated_since: "${after(poNewest)}"`, `updated_since=${after(poNewest)}`, 0],
      [`status: partially_received, internal_code: "PO-FILTER-A"`, 'status=partially_received&internal_code=PO-FILTER-A', 1],
    ]);
    const [soOldest, soNewest] = await span('/api/sales-orders');
    await agree('sales_orders', '/api/sales-orders', [
      ['', '', 2],
      [`partner_id: ${world.partners.client}`, `partner_id=${world.partners.client}`, 2],
      [`partner_id: ${world.partners.supplier}`, `partner_id=${world.partners.supplier}`, 0],
      ['internal_code: "SO-FILTER-A"', 'internal_code=SO-FILTER-A', 1],
      [`updated_since: "${soOldest}"`, `updated_since=${soOldest}`, 2],
      [`updated_since: "${after(soNewest)}"`, `updated_since=${after(soNewest)}`, 0],
      ['status: new, internal_code: "SO-FILTER-B"', 'status=new&internal_code=SO-FILTER-B', 1],
      ['status: new, internal_code: "SO-FILTER-A"', 'status=new&internal_code=SO-FILTER-A', 0],
    ]);
  });

  it('When receptions, shipments or returns are filtered by updated_since, Then they answer the rows the REST list answers', async () => {
    for (const [field, path, count] of [['receptions', '/api/receptions', 2], ['shipments', '/api/shipments', 1], ['returns', '/api/returns', 2]] as const) {
      const [oldest, newest] = await span(path);
      await agree(field, path, [
        [`updated_since: "${oldest}"`, `updated_since=${oldest}`, count],
        [`updated_since: "${after(newest)}"`, `updated_since=${after(newest)}`, 0],
      ]);
    }
    const order = (await rest('/api/sales-orders?internal_code=SO-FILTER-A'))[0]!;
    const [returned] = await span('/api/returns');
    await agree('returns', '/api/returns', [[`sales_order_id: ${order.id}, updated_since: "${returned}"`, `sales_order_id=${order.id}&updated_since=${returned}`, 1]]);
    const [shippedAt] = await span('/api/shipments');
    await agree('shipments', '/api/shipments', [
      [`tracking_number: "TRK-FILTER-1", updated_since: "${shippedAt}"`, `tracking_number=TRK-FILTER-1&updated_since=${shippedAt}`, 1],
      [`tracking_number: "TRK-FILTER-2", updated_since: "${shippedAt}"`, `tracking_number=TRK-FILTER-2&updated_since=${shippedAt}`, 0],
    ]);
  });

  it('When stock_adjustments or stock_transfers are asked, with or without filters, Then they answer the rows (every field, lines included) the REST list answers', async () => {
    const [w1, w2] = world.warehouses as [number, number];
    const [adjOldest, adjNewest] = await span('/api/stock/adjustments');
    await agree('stock_adjustments', '/api/stock/adjustments', [
      ['', '', 2],
      [`warehouse_id: ${w2}`, `warehouse_id=${w2}`, 1],
      ['reason: found', 'reason=found', 1],
      ['reason: damage', 'reason=damage', 0],
      ['internal_code: "ADJ-FILTER-B"', 'internal_code=ADJ-FILTER-B', 1],
      [`updated_since: "${adjOldest}"`, `updated_since=${adjOldest}`, 2],
      [`updated_since: "${after(adjNewest)}"`, `updated_since=${after(adjNewest)}`, 0],
    ]);
    const [trfOldest, trfNewest] = await span('/api/stock/transfers');
    await agree('stock_transfers', '/api/stock/transfers', [
      ['', '', 2],
      [`warehouse_id: ${w1}`, `warehouse_id=${w1}`, 2],
      [`warehouse_id: ${w2}`, `warehouse_id=${w2}`, 1],
      ['internal_code: "TRF-FILTER-A"', 'internal_code=TRF-FILTER-A', 1],
      [`updated_since: "${trfOldest}"`, `updated_since=${trfOldest}`, 2],
      [`updated_since: "${after(trfNewest)}"`, `updated_since=${after(trfNewest)}`, 0],
    ]);

    const whole = async (field: Field, args: string, selection: string): Promise<unknown> => {
      const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field}(${args}) { ${selection} } }` }).expect(200);
      expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
      return res.body.data[field];
    };
    const adjustmentFields = 'id client_3pl_id warehouse_id reason note internal_code created_at updated_at items { id article_id article_code um3pl stock_type lot expiry_date counted_um3pl delta_um3pl quantity_before quantity_after }';
    expect(await whole('stock_adjustments', 'internal_code: "ADJ-FILTER-A"', adjustmentFields)).to.deep.equal(await rest('/api/stock/adjustments?internal_code=ADJ-FILTER-A'));
    const transferFields = 'id client_3pl_id note internal_code created_at updated_at items { id article_id article_code um3pl quantity_um3pl from { warehouse_id stock_type } to { warehouse_id stock_type } lot expiry_date }';
    expect(await whole('stock_transfers', 'internal_code: "TRF-FILTER-B"', transferFields)).to.deep.equal(await rest('/api/stock/transfers?internal_code=TRF-FILTER-B'));
  });

  it('When a list is paged with limit and after, Then the pages hold every row once, by id; after 0 is the first page', async () => {
    for (const field of ['purchase_orders', 'sales_orders', 'receptions', 'returns', 'stock_adjustments', 'stock_transfers'] as const) {
      const page = async (args: string): Promise<number[]> => {
        const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field}(${args}) { id } }` }).expect(200);
        expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
        return (res.body.data[field] as Row[]).map((r) => r.id);
      };
      const all = await graphql(field, '');
      expect(all, field).to.have.length(2);
      const first = await page('limit: 1');
      const second = await page(`limit: 1, after: ${first[0]}`);
      const third = await page(`limit: 1, after: ${second[0]}`);
      expect([first, second, third], field).to.deep.equal([[all[0]], [all[1]], []]);
      expect(await page('limit: 1, after: 0'), field).to.deep.equal(first);
    }
  });

  it('When the module of a list is off, Then the list answers FORBIDDEN (HTTP 403)', async () => {
    const lists: Array<[Field, 'inbound' | 'outbound' | 'returns' | 'stock']> = [
      ['purchase_orders', 'inbound'],
      ['receptions', 'inbound'],
      ['sales_orders', 'outbound'],
      ['shipments', 'outbound'],
      ['returns', 'returns'],
      ['stock_adjustments', 'stock'],
      ['stock_transfers', 'stock'],
    ];
    for (const [field, module] of lists) {
      const off = await createWorld(h.app, h.db, { modulesOff: [module] });
      const res = await off.as('viewer').post('/graphql').send({ query: `{ ${field} { id } }` }).expect(403);
      expect(res.body.errors[0].extensions.code, field).to.equal('FORBIDDEN');
    }
  });

  it('When a filter breaks the rules REST has for it, Then the field fails with BAD_USER_INPUT on the argument', async () => {
    const cases: Array<[string, string, string]> = [
      ['purchase_orders(partner_id: 0)', 'partner_id', 'The partner_id argument must be at least 1.'],
      ['sales_orders(internal_code: "")', 'internal_code', 'The internal_code argument must not be empty; leave it out instead.'],
      [`purchase_orders(internal_code: "${'C'.repeat(65)}")`, 'internal_code', 'The internal_code argument must not be longer than 64 characters.'],
      ['receptions(updated_since: "yesterday")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['returns(updated_since: "2026-11-21")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['sales_orders(updated_since: "2026-11-21 10:00")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['shipments(updated_since: "9999-12-31T23:59:59-01:00")', 'updated_since', 'The updated_since argument must be a time of the years 0000 to 9999 in UTC.'],
      ['stock_adjustments(updated_since: "now")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock_transfers(updated_since: "now")', 'updated_since', 'The updated_since argument must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.'],
      ['stock_adjustments(warehouse_id: -1)', 'warehouse_id', 'The warehouse_id argument must be at least 1.'],
      ['stock_adjustments(after: -5)', 'after', 'The after argument must be the last id seen, or 0 for the first page.'],
      ['sales_orders(after: -1)', 'after', 'The after argument must be the last id seen, or 0 for the first page.'],
      ['articles(after: -1)', 'after', 'The after argument must be the last id seen, or 0 for the first page.'],
      ['warehouses(after: -1)', 'after', 'The after argument must be the last id seen, or 0 for the first page.'],
      ['stock(after: -1)', 'after', 'The after argument must be the last id seen, or 0 for the first page.'],
      [`stock_transfers(internal_code: "${'C'.repeat(65)}")`, 'internal_code', 'The internal_code argument must not be longer than 64 characters.'],
    ];
    for (const [field, argument, message] of cases) {
      const res = await world.as('viewer').post('/graphql').send({ query: `{ ${field} { id } }` }).expect(200);
      expect(res.body.errors?.[0]?.extensions, field).to.deep.include({ code: 'BAD_USER_INPUT', errors: { [argument]: [message] } });
    }
  });
});
