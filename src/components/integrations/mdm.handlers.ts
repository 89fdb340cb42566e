/** The master-data integration routes (shared token MDM_TOKEN). */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { clientContext, tenantContext } from '../../platform/tenant-context.js';
import * as mdm from './mdm.service.js';

export const mdmHandlers = {
  pingMdm: async () => ({ status: 200, body: { ok: true, integration: 'mdm' } }),

  getMdmSyncFields: async () => ({ status: 200, body: mdm.syncFields() }),

  listMdmClientArticles: async ({ deps, auth, params, query }) => ({
    status: 200,
    body: { ok: true, articles: await mdm.clientArticles(deps.db, auth!.principal, params.client3plId, query.limit ?? 500, query.after) },
  }),

  patchMdmArticleByCode: async (input) => ({
    status: 200,
    body: { data: await mdm.patchByCode(clientContext(tenantContext(input), 'the master-data integration'), input.params.articleCode, input.body) },
  }),
} satisfies HandlerMap;
