/** The shipment routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as shipments from './shipments.service.js';

export const shipmentHandlers = {
  createShipment: async (input) => ({ status: 201, body: { data: await shipments.createShipment(tenantContext(input), input.params.id, input.body ?? {}) } }),

  listShipments: async (input) => {
    const page = pageRequestOf(input.query);
    const { sales_order_id, tracking_number, updated_since } = input.query;
    return { status: 200, body: pageOf(input, page, await shipments.listShipments(tenantContext(input), { sales_order_id, tracking_number, updated_since }, page)) };
  },

  getShipment: async (input) => ({ status: 200, body: { data: await shipments.getShipment(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
