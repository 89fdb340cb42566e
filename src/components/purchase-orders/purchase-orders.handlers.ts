/** The purchase-order routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as orders from './purchase-orders.service.js';

export const purchaseOrderHandlers = {
  listPurchaseOrders: async (input) => {
    const page = pageRequestOf(input.query);
    const { status, partner_id, internal_code, updated_since } = input.query;
    const result = await orders.listPurchaseOrders(tenantContext(input), { status, partner_id, internal_code, updated_since }, page);
    return { status: 200, body: pageOf(input, page, result) };
  },

  createPurchaseOrder: async (input) => ({ status: 201, body: { data: await orders.createPurchaseOrder(tenantContext(input), input.body) } }),

  getPurchaseOrder: async (input) => ({ status: 200, body: { data: await orders.getPurchaseOrder(tenantContext(input), input.params.id) } }),

  updatePurchaseOrder: async (input) => ({
    status: 200,
    body: { data: await orders.updatePurchaseOrder(tenantContext(input), input.params.id, input.body) },
  }),
} satisfies HandlerMap;
