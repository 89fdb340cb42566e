/**
 * An ERP integration written the way a vendor writes it: openapi-fetch's `createClient<paths>`
 * over the types openapi-typescript generates from /openapi.json, every request and response
 * typed, no casts (erp-integration.test.ts typechecks this module against freshly generated types
 * and refuses `as`, `!` and `any` in it). It only talks HTTP; it answers what it saw.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './paths.js';

type Api = Client<paths>;
type Schemas = components['schemas'];
type StockType = Schemas['StockType'];

export interface ErpSetup {
  baseUrl: string;
  password: string;
  /** An operator of the client company (articles, orders, receptions, returns). */
  operatorEmail: string;
  /** An admin of the same client (webhook subscriptions). */
  adminEmail: string;
  companyId: number;
  supplierId: number;
  customerId: number;
  warehouseId: number;
  /** Makes article and document codes unique. */
  tag: string;
}

export interface Stock {
  quantity: number;
  reserved: number;
  available: number;
  backordered: number;
}

export interface ErpOutcome {
  tokenEmail: string;
  articles: { codes: string[]; replayed: string | null; replayedSameId: boolean; patched: Schemas['Article'] };
  sync: { pages: number; codes: string[]; inactiveCodes: string[] };
  purchaseOrder: { created: Schemas['PurchaseOrderStatus']; afterReception: Schemas['PurchaseOrderStatus']; received: number };
  stock: { afterReception: Stock; afterOrder: Stock; afterDelivery: Stock; afterReturn: Stock; defectAfterReturn: Stock };
  salesOrder: { statuses: Schemas['SalesOrderStatus'][]; history: Schemas['SalesOrderStatus'][] };
  returned: { lines: number; stockTypes: StockType[] };
  webhook: { events: Schemas['WebhookEventFilter'][]; active: boolean; secretIsWhsec: boolean; listed: boolean };
  duplicate: { status: number; message: string; articleCode: string[] };
  notFound: { status: number; message: string };
}

/** The body of a success, or an Error naming the call, the status and the error body. */
async function ok<T, E>(what: string, call: Promise<{ data: T; error?: never; response: Response } | { data?: never; error: E; response: Response }>): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined || data === null) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/** POST /api/auth/token, then a client that sends the token and the company on every request. */
async function login(setup: ErpSetup, email: string): Promise<{ api: Api; email: string }> {
  const anonymous = createClient<paths>({ baseUrl: setup.baseUrl });
  const body = { email, password: setup.password, device_name: 'erp-sync' };
  const { token, user } = await ok('POST /api/auth/token', anonymous.POST('/api/auth/token', { body }));
  const headers = { Authorization: `Bearer ${token}`, 'X-Company-Id': String(setup.companyId) };
  return { api: createClient<paths>({ baseUrl: setup.baseUrl, headers }), email: user.email };
}

async function stockOf(api: Api, setup: ErpSetup, articleId: number, stockType: StockType = 'STOC_OK'): Promise<Stock> {
  const query = { article_id: articleId, warehouse_id: setup.warehouseId, stock_type: stockType };
  const page = await ok('GET /api/stock', api.GET('/api/stock', { params: { query } }));
  const row = page.data[0];
  if (!row) return { quantity: 0, reserved: 0, available: 0, backordered: 0 };
  return { quantity: row.quantity, reserved: row.reserved, available: row.available, backordered: row.backordered };
}

export async function runErpIntegration(setup: ErpSetup): Promise<ErpOutcome> {
  const { api, email } = await login(setup, setup.operatorEmail);
  const scope = { 'X-Company-Id': String(setup.companyId) };

  // Master data: create, replay a create by its Idempotency-Key, update and deactivate by code.
  const codes = ['JAR', 'CAN', 'BOX'].map((kind) => `ERP-${kind}-${setup.tag}`);
  const created: Schemas['Article'][] = [];
  for (const code of codes) {
    const body = { article_code: code, description: `ERP article ${code}`, um3pl: 'BUC', integer_only_um3pl_quantity: true };
    const header = { ...scope, 'Idempotency-Key': `create-${code}` };
    created.push((await ok('POST /api/articles', api.POST('/api/articles', { params: { header }, body }))).data);
  }
  const [jar, can, box] = created;
  if (!jar || !can || !box) throw new Error('three articles were created');
  const replay = await api.POST('/api/articles', {
    params: { header: { ...scope, 'Idempotency-Key': `create-${jar.article_code}` } },
    body: { article_code: jar.article_code, description: jar.description, um3pl: 'BUC', integer_only_um3pl_quantity: true },
  });
  const byCode = (articleCode: string, body: Schemas['ArticlePatch']) =>
    ok(`PATCH /api/articles/by-code/${articleCode}`, api.PATCH('/api/articles/by-code/{articleCode}', { params: { header: scope, path: { articleCode } }, body }));
  const patched = (await byCode(jar.article_code, { name: 'Tomato paste 400 g', barcode: '5941234567890' })).data;
  await byCode(box.article_code, { active: false });

  // Incremental sync: keyset pages until next_cursor is null.
  const synced: Schemas['Article'][] = [];
  let pages = 0;
  for (let cursor: number | null = 0; cursor !== null; pages++) {
    const page: Schemas['ArticleSyncPage'] = await ok('GET /api/articles/sync', api.GET('/api/articles/sync', { params: { header: scope, query: { cursor, per_page: 2 } } }));
    synced.push(...page.data);
    cursor = page.meta.next_cursor;
  }

  // Inbound: a purchase order to the supplier and its reception.
  const order = (await ok('POST /api/purchase-orders', api.POST('/api/purchase-orders', {
    params: { header: scope },
    body: { partner_id: setup.supplierId, internal_code: `PO-${setup.tag}`, items: [{ article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 10 }] },
  }))).data;
  const poLine = order.items[0];
  if (!poLine) throw new Error('the purchase order has no line');
  await ok('POST /api/receptions', api.POST('/api/receptions', {
    params: { header: scope },
    body: { purchase_order_id: order.id, warehouse_id: setup.warehouseId, selected_items: [{ po_item_id: poLine.id, quantity_um3pl: '10' }] },
  }));
  const received = (await ok('GET /api/purchase-orders/{id}', api.GET('/api/purchase-orders/{id}', { params: { path: { id: order.id } } }))).data;
  const afterReception = await stockOf(api, setup, jar.id);

  // Outbound: a sales order reserves, goes picking, picked, delivered; the customer returns some.
  const sale = (await ok('POST /api/sales-orders', api.POST('/api/sales-orders', {
    params: { header: scope },
    body: { partner_id: setup.customerId, source_warehouse_id: setup.warehouseId, internal_code: `SO-${setup.tag}`, items: [{ article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 6 }] },
  }))).data;
  const afterOrder = await stockOf(api, setup, jar.id);
  const statuses: Schemas['SalesOrderStatus'][] = [sale.status];
  let history: Schemas['SalesOrderStatus'][] = [];
  for (const status of ['picking', 'picked', 'delivered'] satisfies Schemas['SalesOrderStatus'][]) {
    const moved = (await ok(`POST /api/sales-orders/{id}/status ${status}`, api.POST('/api/sales-orders/{id}/status', {
      params: { header: scope, path: { id: sale.id } },
      body: { status },
    }))).data;
    statuses.push(moved.status);
    history = moved.status_history.map((entry) => entry.status);
  }
  const afterDelivery = await stockOf(api, setup, jar.id);
  const returned = (await ok('POST /api/returns', api.POST('/api/returns', {
    params: { header: scope },
    body: {
      partner_id: setup.customerId, warehouse_id: setup.warehouseId, sales_order_id: sale.id, reason: 'Damaged packaging',
      items: [{ article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT' }, { article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 1 }],
    },
  }))).data;
  const afterReturn = await stockOf(api, setup, jar.id);
  const defectAfterReturn = await stockOf(api, setup, jar.id, 'STOC_DEFECT');

  // Webhooks: an admin subscribes the ERP to status changes and stock changes.
  const admin = await login(setup, setup.adminEmail);
  const hook = (await ok('POST /api/webhooks', admin.api.POST('/api/webhooks', {
    params: { header: scope },
    body: { url: `http://127.0.0.1:9/erp-hooks/${setup.tag}`, events: ['sales_order.status_changed', 'stock.changed'], description: 'ERP stock sync' },
  }))).data;
  const hooks = await ok('GET /api/webhooks', admin.api.GET('/api/webhooks', { params: { query: { per_page: 100 } } }));

  // Errors: a 422 with its field errors, a 404 with its message.
  const duplicate = await api.POST('/api/articles', { params: { header: scope }, body: { article_code: can.article_code, description: 'Again', um3pl: 'BUC' } });
  if (!duplicate.error) throw new Error(`a duplicate article code answered ${duplicate.response.status}`);
  const missing = await api.PATCH('/api/articles/by-code/{articleCode}', {
    params: { header: scope, path: { articleCode: `NO-SUCH-${setup.tag}` } },
    body: { name: 'Nobody' },
  });
  if (!missing.error) throw new Error(`an unknown article code answered ${missing.response.status}`);

  return {
    tokenEmail: email,
    articles: {
      codes: created.map((a) => a.article_code),
      replayed: replay.response.headers.get('Idempotent-Replayed'),
      replayedSameId: replay.data?.data.id === jar.id,
      patched,
    },
    sync: { pages, codes: synced.map((a) => a.article_code), inactiveCodes: synced.filter((a) => !a.active).map((a) => a.article_code) },
    purchaseOrder: { created: order.status, afterReception: received.status, received: received.items[0]?.received_quantity_um3pl ?? 0 },
    stock: { afterReception, afterOrder, afterDelivery, afterReturn, defectAfterReturn },
    salesOrder: { statuses, history },
    returned: { lines: returned.items.length, stockTypes: returned.items.map((line) => line.stock_type) },
    webhook: {
      events: hook.events,
      active: hook.active,
      secretIsWhsec: hook.secret.startsWith('whsec_'),
      listed: hooks.data.some((listed) => listed.id === hook.id),
    },
    duplicate: { status: duplicate.response.status, message: duplicate.error.message, articleCode: duplicate.error.errors?.article_code ?? [] },
    notFound: { status: missing.response.status, message: missing.error.message },
  };
}

/**
 * Compile-time checks, never called: each line is a mistake the generated types must reject (an
 * unused `@ts-expect-error` fails the typecheck, so this also proves the client is not `any`).
 */
export function rejectedByTheTypes(api: Api, companyId: number): void {
  const header = { 'X-Company-Id': String(companyId) };
  // @ts-expect-error: no such path
  void api.GET('/api/article');
  // @ts-expect-error: `shipped` is not a sales-order status
  void api.POST('/api/sales-orders/{id}/status', { params: { header, path: { id: 1 } }, body: { status: 'shipped' } });
  // @ts-expect-error: an article needs a description
  void api.POST('/api/articles', { params: { header }, body: { article_code: 'X', um3pl: 'BUC' } });
  // @ts-expect-error: X-Company-Id is required on a create
  void api.POST('/api/purchase-orders', { body: { partner_id: 1, internal_code: 'PO', items: [{ article_id: 1, um3pl: 'BUC', quantity_um3pl: 1 }] } });
  void api.GET('/api/stock', { params: { query: { stock_type: 'STOC_OK' } } }).then(({ data }) => {
    // @ts-expect-error: a stock level has no `price`
    void data?.data[0]?.price;
  });
}
