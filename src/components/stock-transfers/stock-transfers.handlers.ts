/** The stock transfer routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as transfers from './stock-transfers.service.js';

export const stockTransferHandlers = {
  listStockTransfers: async (input) => {
    const page = pageRequestOf(input.query);
    const { warehouse_id, internal_code, updated_since } = input.query;
    return { status: 200, body: pageOf(input, page, await transfers.listStockTransfers(tenantContext(input), { warehouse_id, internal_code, updated_since }, page)) };
  },

  createStockTransfer: async (input) => ({ status: 201, body: { data: await transfers.createStockTransfer(tenantContext(input), input.body) } }),

  getStockTransfer: async (input) => ({ status: 200, body: { data: await transfers.getStockTransfer(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
