/** The sales-order routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as orders from './sales-orders.service.js';
import { changeSalesOrderStatus } from './sales-orders.status.js';
import { holdSalesOrder, releaseSalesOrder } from './sales-orders.holds.js';
import { bulkCreateSalesOrders } from './sales-orders.bulk.js';

export const salesOrderHandlers = {
  listSalesOrders: async (input) => {
    const page = pageRequestOf(input.query);
    const { status, partner_id, internal_code, updated_since } = input.query;
    return { status: 200, body: pageOf(input, page, await orders.listSalesOrders(tenantContext(input), { status, partner_id, internal_code, updated_since }, page)) };
  },

  bulkCreateSalesOrders: async (input) => ({ status: 200, body: await bulkCreateSalesOrders(tenantContext(input), input.body.items) }),

  createSalesOrder: async (input) => ({ status: 201, body: { data: await orders.createSalesOrder(tenantContext(input), input.body) } }),

  getSalesOrder: async (input) => ({ status: 200, body: { data: await orders.getSalesOrder(tenantContext(input), input.params.id) } }),

  updateSalesOrder: async (input) => ({ status: 200, body: { data: await orders.updateSalesOrder(tenantContext(input), input.params.id, input.body) } }),

  changeSalesOrderStatus: async (input) => ({
    status: 200,
    body: { data: await changeSalesOrderStatus(tenantContext(input), input.params.id, input.body.status) },
  }),

  holdSalesOrder: async (input) => ({ status: 200, body: { data: await holdSalesOrder(tenantContext(input), input.params.id, input.body.reason) } }),

  releaseSalesOrder: async (input) => ({ status: 200, body: { data: await releaseSalesOrder(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
