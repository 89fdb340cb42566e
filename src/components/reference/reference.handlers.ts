/** The reference routes: companies, clients, partners, warehouses. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as reference from './reference.service.js';

export const referenceHandlers = {
  listCompanies: async (input) => {
    const page = pageRequestOf(input.query);
    return { status: 200, body: pageOf(input, page, await reference.listCompanies(tenantContext(input), page)) };
  },

  listClients: async (input) => {
    const page = pageRequestOf(input.query);
    return { status: 200, body: pageOf(input, page, await reference.listClients(tenantContext(input), input.query.search, page)) };
  },

  getClient: async (input) => ({ status: 200, body: { data: await reference.getClient(tenantContext(input), input.params.id) } }),

  listPartners: async (input) => {
    const page = pageRequestOf(input.query);
    const { type, search } = input.query;
    return { status: 200, body: pageOf(input, page, await reference.listPartners(tenantContext(input), { type, search }, page)) };
  },

  getPartner: async (input) => ({ status: 200, body: { data: await reference.getPartner(tenantContext(input), input.params.id) } }),

  listWarehouses: async (input) => {
    const page = pageRequestOf(input.query);
    return { status: 200, body: pageOf(input, page, await reference.listWarehouses(tenantContext(input), page)) };
  },

  getWarehouse: async (input) => ({
    status: 200,
    body: { data: await reference.getWarehouse(tenantContext(input), input.params.warehouseId) },
  }),
} satisfies HandlerMap;
