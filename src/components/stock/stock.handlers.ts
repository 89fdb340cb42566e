/** GET /api/stock, the ledger (GET /api/stock/movements) and stock as of a time (GET /api/stock/as-of). */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import { listMovements, listStockAsOf } from './ledger.service.js';
import { listStock } from './stock.service.js';

export const stockHandlers = {
  listStock: async (input) => {
    const page = pageRequestOf(input.query);
    const { warehouse_id, article_id, article_code, stock_type, lot, expires_before, updated_since } = input.query;
    const result = await listStock(tenantContext(input), { warehouse_id, article_id, article_code, stock_type, lot, expires_before, updated_since }, page);
    return { status: 200, body: pageOf(input, page, result) };
  },

  listStockMovements: async (input) => {
    const { after, per_page, article_id, warehouse_id, stock_type, cause, lot, since, until } = input.query;
    return { status: 200, body: await listMovements(tenantContext(input), { after, perPage: per_page ?? 100, article_id, warehouse_id, stock_type, cause, lot, since, until }) };
  },

  listStockAsOf: async (input) => {
    const page = pageRequestOf(input.query);
    const { at, warehouse_id, article_id, article_code, stock_type, lot, expires_before } = input.query;
    return { status: 200, body: pageOf(input, page, await listStockAsOf(tenantContext(input), at, { warehouse_id, article_id, article_code, stock_type, lot, expires_before }, page)) };
  },
} satisfies HandlerMap;
