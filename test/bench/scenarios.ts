/** The benchmark's scenarios, each as a request of the seeded world's operator. */
import { randomBytes } from 'node:crypto';
import type { Load } from './load.js';
import type { BenchWorld } from './seed.js';

/** Each kind has its own target (targets.ts): reads and the rejection on r/s, writes on p99, bulk on r/s. */
export type ScenarioKind = 'read' | 'write' | 'bulk' | 'rejection';

export interface Scenario {
  name: string;
  kind: ScenarioKind;
  /** The status every answer must have. */
  expect: number;
  load: Load;
  /** Writes that use up seeded rows run a number of requests instead of a duration. */
  amount?: number;
  /**
   * Scenarios of one group are measured in the same rounds (each round runs every one of them on
   * both sides), so that a target comparing two of them compares figures of the same minutes.
   */
  group?: string;
}

export const DELIVERED = 'POST /api/sales-orders/{id}/status delivered';
export const DELIVERED_FEFO = 'POST /api/sales-orders/{id}/status delivered (FEFO over 20 lots)';
export const GRAPHQL = 'POST /graphql articles(limit: 50)';
/**
 * Requests of each run of a write that uses up seeded orders: on each side a warm-up of a seventh
 * and 3 runs, 8,172 orders in all (the seed has 8,200 or more of each kind).
 */
const DELIVERIES = 1300;

/** Moves each of `ids` (picked orders) to delivered once, one per request. */
function deliveries(ids: readonly number[], headers: Record<string, string>): Load {
  let next = 0;
  return {
    method: 'POST',
    path: '/api/sales-orders/0/status',
    headers,
    body: JSON.stringify({ status: 'delivered' }),
    nextPath: () => {
      const id = ids[next++];
      if (id === undefined) throw new Error('the seeded picked orders are used up');
      return `/api/sales-orders/${id}/status`;
    },
  };
}

/** Ships each of `orders` (picked) once, naming both its lines whole, with a carrier and tracking number. */
function shipments(orders: BenchWorld['shipmentOrders'], headers: Record<string, string>): Load {
  let next = 0;
  let order: BenchWorld['shipmentOrders'][number] | undefined;
  return {
    method: 'POST',
    path: '/api/sales-orders/0/shipments',
    headers,
    nextPath: () => {
      order = orders[next++];
      if (order === undefined) throw new Error('the seeded shipment orders are used up');
      return `/api/sales-orders/${order.id}/shipments`;
    },
    // Runs after nextPath for the same request (load.ts).
    body: () =>
      JSON.stringify({
        carrier: 'DHL',
        service: 'Express 12:00',
        tracking_number: `BENCH${order!.id}`,
        items: order!.lines.map((so_item_id) => ({ so_item_id, quantity_um3pl: 1 })),
      }),
  };
}

/**
 * Adjusts one balance per request (the second warehouse's STOC_OK of `articleIds`, in turn): each
 * balance by +1 on one pass over them and -1 on the next, so none ever runs out.
 */
function adjustments(articleIds: readonly number[], warehouseId: number, headers: Record<string, string>): Load {
  let next = 0;
  return {
    method: 'POST',
    path: '/api/stock/adjustments',
    headers,
    body: () => {
      const n = next++;
      const delta_um3pl = Math.floor(n / articleIds.length) % 2 === 0 ? 1 : -1;
      const items = [{ article_id: articleIds[n % articleIds.length]!, um3pl: 'BUC', delta_um3pl }];
      return JSON.stringify({ warehouse_id: warehouseId, reason: 'correction', note: 'Bench correction', items });
    },
  };
}

/** A bulk body of `count` new articles (codes no one has used). */
export function bulkArticles(count: number, tag: string): string {
  const items = Array.from({ length: count }, (_, i) => ({
    article_code: `${tag}-${i}`,
    description: `Bulk article ${i} of ${tag}, carton of ${(i % 12) + 1}`,
    um3pl: 'BUC',
    integer_only_um3pl_quantity: true,
  }));
  return JSON.stringify({ items });
}

export const GRAPHQL_QUERY = '{ articles(limit: 50) { id article_code description um3pl active } }';

export function scenarios(world: BenchWorld): Scenario[] {
  const headers = { Authorization: `Bearer ${world.token}`, 'X-Company-Id': String(world.companyId) };
  const json = { ...headers, 'Content-Type': 'application/json' };
  const [warehouse, secondWarehouse] = world.warehouseIds;
  let reception = 0;
  let bulk = 0;
  return [
    { name: 'GET /api/articles?per_page=25', kind: 'read', expect: 200, load: { method: 'GET', path: '/api/articles?per_page=25', headers } },
    {
      name: 'GET /api/stock?per_page=100 (warehouse, stock type)',
      kind: 'read',
      expect: 200,
      load: { method: 'GET', path: `/api/stock?per_page=100&warehouse_id=${warehouse}&stock_type=STOC_OK`, headers },
    },
    { name: 'GET /api/articles/sync?per_page=500 (first page)', kind: 'read', expect: 200, load: { method: 'GET', path: '/api/articles/sync?per_page=500&cursor=0', headers } },
    {
      name: 'GET /api/articles/sync?per_page=500 (last page)',
      kind: 'read',
      expect: 200,
      load: { method: 'GET', path: `/api/articles/sync?per_page=500&cursor=${world.lastSyncCursor}`, headers },
    },
    { name: 'GET /api/events?per_page=500 (first page)', kind: 'read', expect: 200, load: { method: 'GET', path: '/api/events?per_page=500', headers } },
    { name: 'GET /api/events?per_page=500 (last page)', kind: 'read', expect: 200, load: { method: 'GET', path: `/api/events?per_page=500&after=${world.lastEventsAfter}`, headers } },
    {
      name: 'GET /api/stock/movements?per_page=500 (first page)',
      kind: 'read',
      expect: 200,
      load: { method: 'GET', path: '/api/stock/movements?per_page=500', headers },
    },
    {
      name: 'GET /api/stock/movements?per_page=500 (last page)',
      kind: 'read',
      expect: 200,
      load: { method: 'GET', path: `/api/stock/movements?per_page=500&after=${world.lastMovementsAfter}`, headers },
    },
    {
      name: 'GET /api/stock/as-of?per_page=100 (warehouse, stock type)',
      kind: 'read',
      expect: 200,
      load: { method: 'GET', path: `/api/stock/as-of?per_page=100&warehouse_id=${warehouse}&stock_type=STOC_OK&at=${encodeURIComponent(world.asOfAt)}`, headers },
    },
    { name: GRAPHQL, kind: 'read', expect: 200, load: { method: 'POST', path: '/graphql', headers: json, body: JSON.stringify({ query: GRAPHQL_QUERY }) } },
    {
      name: 'POST /api/receptions (2 lines)',
      kind: 'write',
      expect: 201,
      load: {
        method: 'POST',
        path: '/api/receptions',
        headers: json,
        body: () => {
          const po = world.purchaseOrders[reception++ % world.purchaseOrders.length]!;
          const selected_items = po.lines.map((po_item_id) => ({ po_item_id, quantity_um3pl: 1 }));
          return JSON.stringify({ purchase_order_id: po.id, warehouse_id: warehouse, selected_items });
        },
      },
    },
    // Orders of 2 lines of articles without lots, and of 2 lines of articles with 20 lots each (the
    // rows are locked, the lots taken earliest expiry first and the demand allocated again).
    { name: DELIVERED, kind: 'write', expect: 200, amount: DELIVERIES, group: 'delivered', load: deliveries(world.pickedOrderIds, json) },
    { name: DELIVERED_FEFO, kind: 'write', expect: 200, amount: DELIVERIES, group: 'delivered', load: deliveries(world.fefoOrderIds, json) },
    // Picked orders of 2 lines of articles without lots, each shipped whole (the order becomes delivered).
    { name: 'POST /api/sales-orders/{id}/shipments (2 lines)', kind: 'write', expect: 201, amount: DELIVERIES, load: shipments(world.shipmentOrders, json) },
    { name: 'POST /api/stock/adjustments (1 line, +1 or -1)', kind: 'write', expect: 201, load: adjustments(world.adjustedArticleIds, secondWarehouse, json) },
    {
      name: 'POST /api/articles/bulk (500 new articles)',
      kind: 'bulk',
      expect: 200,
      amount: 20,
      load: { method: 'POST', path: '/api/articles/bulk', headers: json, body: () => bulkArticles(500, `BULK-${process.pid}-${bulk++}`) },
    },
    {
      name: 'GET /api/articles with a rejected token',
      kind: 'rejection',
      expect: 401,
      load: { method: 'GET', path: '/api/articles?per_page=25', headers: { Authorization: `Bearer 3pl_pat_${randomBytes(32).toString('base64url')}`, 'X-Company-Id': String(world.companyId) } },
    },
  ];
}
