/** GET /api/stock. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import { listStock } from './stock.service.js';

export const stockHandlers = {
  listStock: async (input) => {
    const page = pageRequestOf(input.query);
    const { warehouse_id, article_id, article_code, stock_type, updated_since } = input.query;
    const result = await listStock(tenantContext(input), { warehouse_id, article_id, article_code, stock_type, updated_since }, page);
    return { status: 200, body: pageOf(input, page, result) };
  },
} satisfies HandlerMap;
