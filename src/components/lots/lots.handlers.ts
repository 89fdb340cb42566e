/** GET /api/lots/trace: where a lot came from and where it went. */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import { traceLot } from './lots.service.js';

export const lotHandlers = {
  traceLot: async (input) => ({ status: 200, body: { data: await traceLot(tenantContext(input), input.query.article_id, input.query.lot) } }),
} satisfies HandlerMap;
