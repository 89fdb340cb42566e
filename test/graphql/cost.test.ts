/**
 * What a GraphQL query may cost (src/platform/graphql/cost.ts): lists multiply by their limit (the default
 * page when absent) and by the lines of a document, so no query reads more than a few REST pages;
 * a query over the limit is refused before it runs, with its cost and the limit in the message.
 */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { MAX_QUERY_COST } from '../../src/platform/graphql/cost.js';
import { buc, createSalesOrder } from '../fixtures/sales-orders.js';

const ARTICLE = 'id client_3pl_id article_code name description um3pl integer_only_um3pl_quantity barcode active created_at updated_at';
const ORDER = `id client_3pl_id partner_id source_warehouse_id stock_type internal_code status notes external_reference created_at updated_at
  items { id article_id article_code um3pl quantity_um3pl }
  status_history { status at user { id name email } }`;
/** Every field of an order, its lines and its history (the shipments aside): 1 + 100 × (13 + (1 + 50 × 7) + 31) = 39,501 a page. */
const EVERY_ORDER_FIELD = `id client_3pl_id partner_id source_warehouse_id stock_type internal_code status notes external_reference on_hold hold_reason created_at updated_at
  items { id article_id article_code um3pl quantity_um3pl delivered_quantity_um3pl lot }
  status_history { status at user { id name email } }`;
/** With the shipments: + 100 × (1 + 50 × 5) = 64,601 a page. */
const EVERY_ORDER_FIELD_AND_SHIPMENT = `${EVERY_ORDER_FIELD} shipments { id carrier shipped_at tracking_number tracking_url }`;
const aliases = (count: number, field: string): string => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');

describe('POST /graphql: the cost of a query', () => {
  let h: Harness;
  let world: World;
  let order: number;
  const gql = (text: string, variables?: object): Test => world.as('viewer').post('/graphql').send({ query: text, variables });

  /** The refusal of a query costing `cost`: HTTP 200 (an error of the query), no data, one error that says what to do. */
  async function refused(res: Test, cost: number): Promise<void> {
    const { body } = await res.expect(200);
    expect(body.data).to.equal(undefined);
    expect(body.errors).to.have.length(1);
    expect(body.errors[0].message).to.equal(
      `The query costs ${cost}, more than the limit of ${MAX_QUERY_COST}: each field counts 1 and each list multiplies what it selects by its limit (25 when absent; 50 for a list without a limit: the lines of a document, an order's shipments). Ask for fewer rows or fields, or split the query.`,
    );
    expect(body.errors[0].extensions).to.deep.equal({ code: 'QUERY_TOO_COSTLY', cost: { actual: cost, max: MAX_QUERY_COST } });
  }

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    order = (await createSalesOrder(world, [buc(world.articles.client, 2)])).id;
  });

  it('When 15 aliases of sales_orders(limit: 100) ask for their lines, Then the query is refused before it runs, its cost multiplied by the limit and the lines', async () => {
    // Each alias: 1 + 100 × (id 1 + items (1 + 50 × 3 fields)) = 15,201.
    await refused(gql(`{ ${aliases(15, 'sales_orders(limit: 100) { id items { id article_code quantity_um3pl } }')} }`), 15 * 15_201);
  });

  it('When 5 such aliases are asked (about 5 REST pages of orders with their lines), Then it is refused; 4 are answered', async () => {
    await refused(gql(`{ ${aliases(5, 'sales_orders(limit: 100) { items { id article_code quantity_um3pl } }')} }`), 5 * 15_101);
    const res = await gql(`{ ${aliases(4, 'sales_orders(limit: 100) { items { id article_code quantity_um3pl } }')} }`).expect(200);
    expect(res.body.errors).to.equal(undefined);
    expect(res.body.data.a3).to.have.length(1);
  });

  it('When the limit comes in a variable, Then its value counts', async () => {
    const text = `query($n: Int) { ${aliases(5, 'sales_orders(limit: $n) { items { id article_code quantity_um3pl } }')} }`;
    await refused(gql(text, { n: 100 }), 5 * 15_101);
    expect((await gql(text, { n: 10 }).expect(200)).body.errors).to.equal(undefined);
  });

  it('When the limit is absent, Then the default page (25) counts, as when it is given', async () => {
    const full = `sales_orders { ${ORDER} }`;
    await refused(gql(`{ ${aliases(11, full)} }`), 11 * 7_326);
    await refused(gql(`{ ${aliases(11, full.replace('sales_orders', 'sales_orders(limit: 25)'))} }`), 11 * 7_326);
  });

  it('When two pages of 100 orders ask every field of the orders, lines and history, Then they are refused at 2 × 39,501 (the documented costs hold)', async () => {
    await refused(gql(`{ ${aliases(2, `sales_orders(limit: 100) { ${EVERY_ORDER_FIELD} }`)} }`), 2 * 39_501);
    await refused(gql(`{ ${aliases(2, `sales_orders(limit: 100) { ${EVERY_ORDER_FIELD_AND_SHIPMENT} }`)} }`), 2 * 64_601);
    expect((await gql(`{ sales_orders(limit: 100) { ${EVERY_ORDER_FIELD_AND_SHIPMENT} } }`).expect(200)).body.errors).to.equal(undefined);
  });

  it('When usual queries are asked (a page of 100 orders with every field of the orders, lines and history; two pages with 5 fields of the lines; 15 pages of articles, the lines of purchase orders and receptions), Then they are answered', async () => {
    const orders = await gql(`{ sales_orders(limit: 100) { ${ORDER} } }`).expect(200);
    expect(orders.body.errors).to.equal(undefined);
    expect(orders.body.data.sales_orders.map((o: { id: number }) => o.id)).to.deep.equal([order]);
    expect(orders.body.data.sales_orders[0].items).to.have.length(1);
    const articles = await gql(`{ ${aliases(15, `articles(limit: 100) { ${ARTICLE} }`)} }`).expect(200);
    expect(articles.body.errors).to.equal(undefined);
    const everyField = await gql(`{ sales_orders(limit: 100) { ${EVERY_ORDER_FIELD} } }`).expect(200);
    expect(everyField.body.errors).to.equal(undefined);
    const twoPages = await gql(`{ a: sales_orders(limit: 100) { ${ORDER} } b: sales_orders(limit: 100, after: 100) { ${ORDER} } }`).expect(200);
    expect(twoPages.body.errors).to.equal(undefined);
    const inbound = await gql('{ purchase_orders(limit: 100) { id items { id article_code quantity_um3pl received_quantity_um3pl } } receptions(limit: 100) { id items { id quantity_um3pl } } }').expect(200);
    expect(inbound.body.errors).to.equal(undefined);
  });
});
