/**
 * The ERP scenario's client through the fetch client orval generates with typed headers
 * (`client: 'fetch'`, `headers: true`, the base URL from the document's `servers`, which the
 * server serves as APP_URL): each function answers `{ data, status, headers }`, a union typed per
 * status. The SDK test typechecks this file with `./orval.generated.js` read as the module it
 * generated and hands that module in at run time; left out of the project's typecheck.
 */
import type * as Generated from './orval.generated.js';
import { statusAnswer as answer, type ErpClient, type ErpClientFactory } from '../scenario.js';

type Api = typeof Generated;

/** `options` of every call: the token once there is one (X-Company-Id and Idempotency-Key are typed headers). */
function client(api: Api, options: RequestInit): ErpClient {
  return {
    withToken: (token) => client(api, { headers: { Authorization: `Bearer ${token}` } }),
    createToken: (body) => answer(api.createToken(body, options)),
    createArticle: (company, body, key) => answer(api.createArticle(body, { 'X-Company-Id': company, 'Idempotency-Key': key }, options)),
    patchArticleByCode: (company, articleCode, body) => answer(api.patchArticleByCode(articleCode, body, { 'X-Company-Id': company }, options)),
    syncArticles: (company, query) => answer(api.syncArticles({ 'X-Company-Id': company }, query, options)),
    createPurchaseOrder: (company, body) => answer(api.createPurchaseOrder(body, { 'X-Company-Id': company }, options)),
    getPurchaseOrder: (id) => answer(api.getPurchaseOrder(id, {}, options)),
    createReception: (company, body) => answer(api.createReception(body, { 'X-Company-Id': company }, options)),
    listStock: (query) => answer(api.listStock(query, {}, options)),
    createSalesOrder: (company, body) => answer(api.createSalesOrder(body, { 'X-Company-Id': company }, options)),
    changeSalesOrderStatus: (company, id, body) => answer(api.changeSalesOrderStatus(id, body, { 'X-Company-Id': company }, options)),
    createReturn: (company, body) => answer(api.createReturn(body, { 'X-Company-Id': company }, options)),
    createWebhook: (company, body) => answer(api.createWebhook(body, { 'X-Company-Id': company }, options)),
    listWebhooks: (query) => answer(api.listWebhooks(query, {}, options)),
  };
}

/**
 * The adapter over a module orval generated. orval writes the base URL into the module (from the
 * document's `servers`): this checks that it is the server's, rather than setting it.
 */
export function orvalClient(api: Api): ErpClientFactory {
  return (baseUrl) => {
    const target = api.getCreateArticleUrl();
    if (target !== `${baseUrl}/api/articles`) throw new Error(`orval's client targets ${target}, not ${baseUrl}/api/articles`);
    return client(api, {});
  };
}
