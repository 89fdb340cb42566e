/** The stock adjustment routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as adjustments from './stock-adjustments.service.js';

export const stockAdjustmentHandlers = {
  listStockAdjustments: async (input) => {
    const page = pageRequestOf(input.query);
    const { warehouse_id, reason, internal_code, updated_since } = input.query;
    return { status: 200, body: pageOf(input, page, await adjustments.listStockAdjustments(tenantContext(input), { warehouse_id, reason, internal_code, updated_since }, page)) };
  },

  createStockAdjustment: async (input) => ({ status: 201, body: { data: await adjustments.createStockAdjustment(tenantContext(input), input.body) } }),

  getStockAdjustment: async (input) => ({ status: 200, body: { data: await adjustments.getStockAdjustment(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
