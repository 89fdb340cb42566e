/** The reception routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as receptions from './receptions.service.js';
import { updateReception } from './receptions.update.js';

export const receptionHandlers = {
  listReceptions: async (input) => {
    const page = pageRequestOf(input.query);
    const { purchase_order_id, updated_since } = input.query;
    return { status: 200, body: pageOf(input, page, await receptions.listReceptions(tenantContext(input), { purchase_order_id, updated_since }, page)) };
  },

  createReception: async (input) => ({ status: 201, body: { data: await receptions.createReception(tenantContext(input), input.body) } }),

  getReception: async (input) => ({ status: 200, body: { data: await receptions.getReception(tenantContext(input), input.params.id) } }),

  updateReception: async (input) => ({ status: 200, body: { data: await updateReception(tenantContext(input), input.params.id, input.body) } }),
} satisfies HandlerMap;
