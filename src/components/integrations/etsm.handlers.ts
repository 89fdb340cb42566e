/** The reception integration routes (shared token ETSM_TOKEN): the same service and rules as POST /api/receptions. */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { clientContext, tenantContext } from '../../platform/tenant-context.js';
import { createReception } from '../receptions/receptions.service.js';

export const etsmHandlers = {
  pingEtsm: async () => ({ status: 200, body: { ok: true, integration: 'etsm' } }),

  createEtsmReception: async (input) => ({ status: 201, body: { data: await createReception(clientContext(tenantContext(input), 'the reception integration'), input.body) } }),
} satisfies HandlerMap;
