/** The return routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as returns from './returns.service.js';

export const returnHandlers = {
  listReturns: async (input) => {
    const page = pageRequestOf(input.query, 100);
    const { sales_order_id, updated_since } = input.query;
    return { status: 200, body: pageOf(input, page, await returns.listReturns(tenantContext(input), { sales_order_id, updated_since }, page)) };
  },

  createReturn: async (input) => ({ status: 201, body: { data: await returns.createReturn(tenantContext(input), input.body) } }),

  getReturn: async (input) => ({ status: 200, body: { data: await returns.getReturn(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
