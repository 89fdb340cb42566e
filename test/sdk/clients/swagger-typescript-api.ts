/**
 * The ERP scenario's client through the `Api` class swagger-typescript-api generates (union
 * enums): its methods answer an `HttpResponse` (a fetch Response with `data`) and throw it with
 * `error` on a status that is not 2xx. It types no header parameter, so X-Company-Id and
 * Idempotency-Key go in each call's `headers`; the token goes through its `securityWorker`. The
 * SDK test typechecks this file with `./swagger-typescript-api.generated.js` read as the module it
 * generated and hands that module in at run time; left out of the project's typecheck.
 */
import type * as Generated from './swagger-typescript-api.generated.js';
import { errorAnswer, type Answer, type ErpClient, type ErpClientFactory } from '../scenario.js';

type Module = typeof Generated;
type Api = Generated.Api<string>;

/** A success as the scenario's answer; the thrown error response of a failure too. */
async function answer<T>(call: Promise<{ status: number; data: T; headers: Headers }>): Promise<Answer<T>> {
  try {
    const { status, data, headers } = await call;
    return { ok: true, status, data, headers };
  } catch (thrown) {
    if (thrown instanceof Response && 'error' in thrown) return errorAnswer(thrown.status, thrown.error, thrown.headers);
    throw thrown;
  }
}

const scope = (company: string, idempotencyKey?: string) => ({
  headers: { 'X-Company-Id': company, ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }) },
});

function client(module: Module, baseUrl: string, token: string | null): ErpClient {
  const http: Api = new module.Api<string>({ baseUrl, securityWorker: (bearer) => (bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {}) });
  if (token !== null) http.setSecurityData(token);
  const { api } = http;
  return {
    withToken: (bearer) => client(module, baseUrl, bearer),
    createToken: (body) => answer(api.createToken(body)),
    createArticle: (company, body, key) => answer(api.createArticle(body, scope(company, key))),
    patchArticleByCode: (company, articleCode, body) => answer(api.patchArticleByCode(articleCode, body, scope(company))),
    syncArticles: (company, query) => answer(api.syncArticles(query, scope(company))),
    createPurchaseOrder: (company, body) => answer(api.createPurchaseOrder(body, scope(company))),
    getPurchaseOrder: (id) => answer(api.getPurchaseOrder(id)),
    createReception: (company, body) => answer(api.createReception(body, scope(company))),
    listStock: (query) => answer(api.listStock(query)),
    createSalesOrder: (company, body) => answer(api.createSalesOrder(body, scope(company))),
    changeSalesOrderStatus: (company, id, body) => answer(api.changeSalesOrderStatus(id, body, scope(company))),
    createReturn: (company, body) => answer(api.createReturn(body, scope(company))),
    createWebhook: (company, body) => answer(api.createWebhook(body, scope(company))),
    listWebhooks: (query) => answer(api.listWebhooks(query)),
  };
}

/** The adapter over a module swagger-typescript-api generated. */
export function swaggerTypescriptApiClient(module: Module): ErpClientFactory {
  return (baseUrl) => client(module, baseUrl, null);
}
