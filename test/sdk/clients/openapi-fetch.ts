/**
 * The ERP scenario's client through openapi-fetch over openapi-typescript's types (../paths.js,
 * which the SDK test points at the types it generated from the served document). Part of the
 * project's typecheck: on a fresh clone it compiles against the committed types.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../paths.js';
import { errorAnswer, type Answer, type ErpClient, type ErpClientFactory } from '../scenario.js';

type Api = Client<paths>;

/** openapi-fetch's `{ data, error, response }` as the scenario's answer. */
async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Answer<T>> {
  const { data, error, response } = await call;
  if (data !== undefined && error === undefined) return { ok: true, status: response.status, data, headers: response.headers };
  return errorAnswer(response.status, error, response.headers);
}

function client(api: Api, baseUrl: string): ErpClient {
  return {
    withToken: (token) => client(createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } }), baseUrl),
    createToken: (body) => answer(api.POST('/api/auth/token', { body })),
    createArticle: (company, body, key) => answer(api.POST('/api/articles', { params: { header: { 'X-Company-Id': company, 'Idempotency-Key': key } }, body })),
    patchArticleByCode: (company, articleCode, body) =>
      answer(api.PATCH('/api/articles/by-code/{articleCode}', { params: { header: { 'X-Company-Id': company }, path: { articleCode } }, body })),
    syncArticles: (company, query) => answer(api.GET('/api/articles/sync', { params: { header: { 'X-Company-Id': company }, query } })),
    createPurchaseOrder: (company, body) => answer(api.POST('/api/purchase-orders', { params: { header: { 'X-Company-Id': company } }, body })),
    getPurchaseOrder: (id) => answer(api.GET('/api/purchase-orders/{id}', { params: { path: { id } } })),
    createReception: (company, body) => answer(api.POST('/api/receptions', { params: { header: { 'X-Company-Id': company } }, body })),
    listStock: (query) => answer(api.GET('/api/stock', { params: { query } })),
    createSalesOrder: (company, body) => answer(api.POST('/api/sales-orders', { params: { header: { 'X-Company-Id': company } }, body })),
    changeSalesOrderStatus: (company, id, body) => answer(api.POST('/api/sales-orders/{id}/status', { params: { header: { 'X-Company-Id': company }, path: { id } }, body })),
    createReturn: (company, body) => answer(api.POST('/api/returns', { params: { header: { 'X-Company-Id': company } }, body })),
    createWebhook: (company, body) => answer(api.POST('/api/webhooks', { params: { header: { 'X-Company-Id': company } }, body })),
    listWebhooks: (query) => answer(api.GET('/api/webhooks', { params: { query } })),
  };
}

export const openapiFetchClient: ErpClientFactory = (baseUrl) => client(createClient<paths>({ baseUrl }), baseUrl);

/**
 * Compile-time checks, never called: each line is a mistake the generated types must reject (an
 * unused `@ts-expect-error` fails the typecheck, so this also proves the client is not `any`).
 */
export function rejectedByTheTypes(api: Api): void {
  const header = { 'X-Company-Id': '2' };
  // @ts-expect-error: no such path
  void api.GET('/api/article');
  // @ts-expect-error: `shipped` is not a sales-order status
  void api.POST('/api/sales-orders/{id}/status', { params: { header, path: { id: 1 } }, body: { status: 'shipped' } });
  // @ts-expect-error: an article needs a description
  void api.POST('/api/articles', { params: { header }, body: { article_code: 'X', um3pl: 'BUC' } });
  // @ts-expect-error: X-Company-Id is required on a create
  void api.POST('/api/purchase-orders', { body: { partner_id: 1, internal_code: 'PO', items: [{ article_id: 1, um3pl: 'BUC', quantity_um3pl: 1 }] } });
  // @ts-expect-error: X-Company-Id is a header: text, not a number
  void api.POST('/api/articles', { params: { header: { 'X-Company-Id': 2 } }, body: { article_code: 'X', description: 'X', um3pl: 'BUC' } });
  void api.GET('/api/stock', { params: { query: { stock_type: 'STOC_OK' } } }).then(({ data }) => {
    // @ts-expect-error: a stock level has no `price`
    void data?.data[0]?.price;
  });
}
