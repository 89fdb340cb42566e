/**
 * An ERP integration written once, against a port (ErpClient) that each generated client
 * implements in a few lines (test/sdk/clients/: openapi-fetch, oazapfts, orval,
 * swagger-typescript-api). The port's types are the document's, as openapi-typescript generates
 * them (./paths.js): an adapter compiles only when its generator's types fit them. No casts here
 * or in the adapters (the SDK tests refuse `as`, `!` and `any` in them). It only talks HTTP; it
 * answers what it saw.
 */
import type { components, operations } from './paths.js';

type Schemas = components['schemas'];
type StockType = Schemas['StockType'];
type OperationId = keyof operations;
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Responses<K extends OperationId> = operations[K]['responses'];

/** The JSON body of an operation's request. */
export type RequestBody<K extends OperationId> = Json<NonNullable<operations[K]['requestBody']>>;
/** The JSON body of its success (200 or 201). */
export type SuccessBody<K extends OperationId> = Json<Responses<K>[Extract<keyof Responses<K>, 200 | 201>]>;
/** Its query parameters. */
export type Query<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;
export type ErrorBody = Schemas['ErrorBody'];

/** An answer as the scenario reads it, whichever client sent the request. */
export type Answer<T> = { ok: true; status: number; data: T; headers: Headers } | { ok: false; status: number; error: ErrorBody; headers: Headers };
type Reply<K extends OperationId> = Promise<Answer<SuccessBody<K>>>;

/** What the scenario asks of a client. `company` is the X-Company-Id header, a string of digits. */
export interface ErpClient {
  /** The same client, sending `token` as the bearer token on every request. */
  withToken(token: string): ErpClient;
  createToken(body: RequestBody<'createToken'>): Reply<'createToken'>;
  createArticle(company: string, body: RequestBody<'createArticle'>, idempotencyKey?: string): Reply<'createArticle'>;
  patchArticleByCode(company: string, articleCode: string, body: RequestBody<'patchArticleByCode'>): Reply<'patchArticleByCode'>;
  syncArticles(company: string, query: Query<'syncArticles'>): Reply<'syncArticles'>;
  createPurchaseOrder(company: string, body: RequestBody<'createPurchaseOrder'>): Reply<'createPurchaseOrder'>;
  getPurchaseOrder(id: number): Reply<'getPurchaseOrder'>;
  createReception(company: string, body: RequestBody<'createReception'>): Reply<'createReception'>;
  listStock(query: Query<'listStock'>): Reply<'listStock'>;
  createSalesOrder(company: string, body: RequestBody<'createSalesOrder'>): Reply<'createSalesOrder'>;
  changeSalesOrderStatus(company: string, id: number, body: RequestBody<'changeSalesOrderStatus'>): Reply<'changeSalesOrderStatus'>;
  createReturn(company: string, body: RequestBody<'createReturn'>): Reply<'createReturn'>;
  createWebhook(company: string, body: RequestBody<'createWebhook'>): Reply<'createWebhook'>;
  listWebhooks(query: Query<'listWebhooks'>): Reply<'listWebhooks'>;
}

/** An adapter: a client of the server at `baseUrl`, without a token yet. */
export type ErpClientFactory = (baseUrl: string) => ErpClient;

/** Whether a body is an error body (`{ message, errors? }`), as every error of the API answers. */
export function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string';
}

/** An error answer from a status and a body; a body that is not an error body is reported as such. */
export function errorAnswer(status: number, body: unknown, headers: Headers): Answer<never> {
  const error = isErrorBody(body) ? body : { message: `not an error body: ${JSON.stringify(body)}` };
  return { ok: false, status, error, headers };
}

type SuccessOf<R> = Extract<R, { status: 200 | 201 }>;

function isSuccess<R extends { status: number }>(reply: R): reply is SuccessOf<R> {
  return reply.status === 200 || reply.status === 201;
}

/**
 * The answer of a client that answers `{ status, data, headers }` as a union typed per status
 * (oazapfts, orval): 200 and 201 are the successes, any other status an error.
 */
export async function statusAnswer<R extends { status: number; data?: unknown; headers: Headers }>(call: Promise<R>): Promise<Answer<SuccessOf<R>['data']>> {
  const reply = await call;
  return isSuccess(reply) ? { ok: true, status: reply.status, data: reply.data, headers: reply.headers } : errorAnswer(reply.status, reply.data, reply.headers);
}

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
async function ok<T>(what: string, call: Promise<Answer<T>>): Promise<T> {
  const answer = await call;
  if (!answer.ok) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

/** The error of an answer that must fail, or an Error saying it did not. */
async function refused<T>(what: string, call: Promise<Answer<T>>): Promise<{ status: number; error: ErrorBody }> {
  const answer = await call;
  if (answer.ok) throw new Error(`${what} answered ${answer.status}, not an error`);
  return answer;
}

/** POST /api/auth/token, then the client with the token. */
async function login(client: ErpClient, setup: ErpSetup, email: string): Promise<{ api: ErpClient; email: string }> {
  const { token, user } = await ok('POST /api/auth/token', client.createToken({ email, password: setup.password, device_name: 'erp-sync' }));
  return { api: client.withToken(token), email: user.email };
}

async function stockOf(api: ErpClient, setup: ErpSetup, articleId: number, stockType: StockType = 'STOC_OK'): Promise<Stock> {
  const page = await ok('GET /api/stock', api.listStock({ article_id: [articleId], warehouse_id: setup.warehouseId, stock_type: stockType }));
  const row = page.data[0];
  if (!row) return { quantity: 0, reserved: 0, available: 0, backordered: 0 };
  return { quantity: row.quantity, reserved: row.reserved, available: row.available, backordered: row.backordered };
}

export async function runErpIntegration(client: ErpClient, setup: ErpSetup): Promise<ErpOutcome> {
  const { api, email } = await login(client, setup, setup.operatorEmail);
  const company = String(setup.companyId);

  // Master data: create, replay a create by its Idempotency-Key, update and deactivate by code.
  const codes = ['JAR', 'CAN', 'BOX'].map((kind) => `ERP-${kind}-${setup.tag}`);
  const created: Schemas['Article'][] = [];
  for (const code of codes) {
    const body = { article_code: code, description: `ERP article ${code}`, um3pl: 'BUC', integer_only_um3pl_quantity: true };
    created.push((await ok('POST /api/articles', api.createArticle(company, body, `create-${code}`))).data);
  }
  const [jar, can, box] = created;
  if (!jar || !can || !box) throw new Error('three articles were created');
  const replay = await api.createArticle(company, { article_code: jar.article_code, description: jar.description, um3pl: 'BUC', integer_only_um3pl_quantity: true }, `create-${jar.article_code}`);
  const byCode = (articleCode: string, body: RequestBody<'patchArticleByCode'>) => ok(`PATCH /api/articles/by-code/${articleCode}`, api.patchArticleByCode(company, articleCode, body));
  const patched = (await byCode(jar.article_code, { name: 'Tomato paste 400 g', barcode: '5941234567890' })).data;
  await byCode(box.article_code, { active: false });

  // Incremental sync: keyset pages until next_cursor is null.
  const synced: Schemas['Article'][] = [];
  let pages = 0;
  for (let cursor: number | null = 0; cursor !== null; pages++) {
    const page: Schemas['ArticleSyncPage'] = await ok('GET /api/articles/sync', api.syncArticles(company, { cursor, per_page: 2 }));
    synced.push(...page.data);
    cursor = page.meta.next_cursor;
  }

  // Inbound: a purchase order to the supplier and its reception.
  const order = (await ok('POST /api/purchase-orders', api.createPurchaseOrder(company, {
    partner_id: setup.supplierId, internal_code: `PO-${setup.tag}`, items: [{ article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 10 }],
  }))).data;
  const poLine = order.items[0];
  if (!poLine) throw new Error('the purchase order has no line');
  await ok('POST /api/receptions', api.createReception(company, {
    purchase_order_id: order.id, warehouse_id: setup.warehouseId, selected_items: [{ po_item_id: poLine.id, quantity_um3pl: '10' }],
  }));
  const received = (await ok('GET /api/purchase-orders/{id}', api.getPurchaseOrder(order.id))).data;
  const afterReception = await stockOf(api, setup, jar.id);

  // Outbound: a sales order reserves, goes picking, picked, delivered; the customer returns some.
  const sale = (await ok('POST /api/sales-orders', api.createSalesOrder(company, {
    partner_id: setup.customerId, source_warehouse_id: setup.warehouseId, internal_code: `SO-${setup.tag}`, items: [{ article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 6 }],
  }))).data;
  const afterOrder = await stockOf(api, setup, jar.id);
  const statuses: Schemas['SalesOrderStatus'][] = [sale.status];
  let history: Schemas['SalesOrderStatus'][] = [];
  for (const status of ['picking', 'picked', 'delivered'] satisfies Schemas['SalesOrderStatus'][]) {
    const moved = (await ok(`POST /api/sales-orders/{id}/status ${status}`, api.changeSalesOrderStatus(company, sale.id, { status }))).data;
    statuses.push(moved.status);
    history = moved.status_history.map((entry) => entry.status);
  }
  const afterDelivery = await stockOf(api, setup, jar.id);
  const returned = (await ok('POST /api/returns', api.createReturn(company, {
    partner_id: setup.customerId, warehouse_id: setup.warehouseId, sales_order_id: sale.id, reason: 'Damaged packaging',
    items: [{ article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT' }, { article_id: jar.id, um3pl: 'BUC', quantity_um3pl: 1 }],
  }))).data;
  const afterReturn = await stockOf(api, setup, jar.id);
  const defectAfterReturn = await stockOf(api, setup, jar.id, 'STOC_DEFECT');

  // Webhooks: an admin subscribes the ERP to status changes and stock changes.
  const admin = await login(client, setup, setup.adminEmail);
  const hook = (await ok('POST /api/webhooks', admin.api.createWebhook(company, {
    url: `http://127.0.0.1:9/erp-hooks/${setup.tag}`, events: ['sales_order.status_changed', 'stock.changed'], description: 'ERP stock sync',
  }))).data;
  const hooks = await ok('GET /api/webhooks', admin.api.listWebhooks({ per_page: 100 }));

  // Errors: a 422 with its field errors, a 404 with its message.
  const duplicate = await refused('a duplicate article code', api.createArticle(company, { article_code: can.article_code, description: 'Again', um3pl: 'BUC' }));
  const missing = await refused('an unknown article code', api.patchArticleByCode(company, `NO-SUCH-${setup.tag}`, { name: 'Nobody' }));

  return {
    tokenEmail: email,
    articles: {
      codes: created.map((a) => a.article_code),
      replayed: replay.headers.get('Idempotent-Replayed'),
      replayedSameId: replay.ok && replay.data.data.id === jar.id,
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
    duplicate: { status: duplicate.status, message: duplicate.error.message, articleCode: duplicate.error.errors?.article_code ?? [] },
    notFound: { status: missing.status, message: missing.error.message },
  };
}
