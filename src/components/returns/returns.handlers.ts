/** The return routes. */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as returns from './returns.service.js';

export const returnHandlers = {
  listReturns: async (input) => ({ status: 200, body: { data: await returns.listReturns(tenantContext(input)) } }),

  createReturn: async (input) => ({ status: 201, body: { data: await returns.createReturn(tenantContext(input), input.body) } }),

  getReturn: async (input) => ({ status: 200, body: { data: await returns.getReturn(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
