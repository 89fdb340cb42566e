/** The benchmark's scenarios, each as a request of the seeded world's operator. */
import { randomBytes } from 'node:crypto';
import type { Load } from './load.js';
import type { BenchWorld } from './seed.js';

/** `bulk`: printed beside the others; its targets belong to the performance issue. */
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
  const [warehouse] = world.warehouseIds;
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
    { name: 'POST /graphql articles(limit: 50)', kind: 'read', expect: 200, load: { method: 'POST', path: '/graphql', headers: json, body: JSON.stringify({ query: GRAPHQL_QUERY }) } },
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
