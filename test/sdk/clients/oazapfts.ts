/**
 * The ERP scenario's client through the functions oazapfts generates (`oazapfts
 * <url>/openapi.json api.ts`): each answers `{ status, data, headers }`, a union typed per status.
 * The SDK test (generators.test.ts) typechecks this file with `./oazapfts.generated.js` read as
 * the module it generated, then hands that module in at run time. Left out of the project's
 * typecheck (tsconfig.json), which has no generated module to read.
 */
import type * as Generated from './oazapfts.generated.js';
import { statusAnswer as answer, type ErpClient, type ErpClientFactory } from '../scenario.js';

type Api = typeof Generated;
/** What every call takes last: where to send it, and the token once there is one. */
interface Opts {
  baseUrl: string;
  headers?: Record<string, string>;
}

function client(api: Api, opts: Opts): ErpClient {
  return {
    withToken: (token) => client(api, { ...opts, headers: { Authorization: `Bearer ${token}` } }),
    createToken: (body) => answer(api.createToken(body, opts)),
    createArticle: (company, body, idempotencyKey) => answer(api.createArticle(company, body, { idempotencyKey }, opts)),
    patchArticleByCode: (company, articleCode, body) => answer(api.patchArticleByCode(articleCode, company, body, {}, opts)),
    syncArticles: (company, query) => answer(api.syncArticles(company, { cursor: query.cursor, perPage: query.per_page, updatedSince: query.updated_since }, opts)),
    createPurchaseOrder: (company, body) => answer(api.createPurchaseOrder(company, body, {}, opts)),
    getPurchaseOrder: (id) => answer(api.getPurchaseOrder(id, {}, opts)),
    createReception: (company, body) => answer(api.createReception(company, body, {}, opts)),
    listStock: (query) =>
      answer(api.listStock({ articleId: query.article_id, warehouseId: query.warehouse_id, stockType: query.stock_type, page: query.page, perPage: query.per_page }, opts)),
    createSalesOrder: (company, body) => answer(api.createSalesOrder(company, body, {}, opts)),
    changeSalesOrderStatus: (company, id, body) => answer(api.changeSalesOrderStatus(id, company, body, {}, opts)),
    createReturn: (company, body) => answer(api.createReturn(company, body, {}, opts)),
    createWebhook: (company, body) => answer(api.createWebhook(company, body, {}, opts)),
    listWebhooks: (query) => answer(api.listWebhooks({ page: query.page, perPage: query.per_page }, opts)),
  };
}

/** The adapter over a module oazapfts generated. */
export function oazapftsClient(api: Api): ErpClientFactory {
  return (baseUrl) => client(api, { baseUrl });
}
