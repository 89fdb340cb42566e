/** GET /api/events. */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import { listEvents } from './events.service.js';

export const eventHandlers = {
  listEvents: async (input) => {
    const { after, types, per_page } = input.query;
    return { status: 200, body: await listEvents(tenantContext(input), { after, types, perPage: per_page ?? 100 }) };
  },
} satisfies HandlerMap;
