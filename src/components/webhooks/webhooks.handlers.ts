/** The webhook routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import type { Config } from '../../config.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as webhooks from './webhooks.service.js';

function policy(config: Config): webhooks.WebhookPolicy {
  return { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivateTargets, maxSubscriptions: config.webhookMaxSubscriptions };
}

export const webhookHandlers = {
  listWebhooks: async (input) => {
    const page = pageRequestOf(input.query);
    return { status: 200, body: pageOf(input, page, await webhooks.listWebhooks(tenantContext(input), page)) };
  },

  createWebhook: async (input) => ({
    status: 201,
    body: { data: await webhooks.createWebhook(tenantContext(input), input.body, policy(input.deps.config)) },
  }),

  getWebhook: async (input) => ({ status: 200, body: { data: await webhooks.getWebhook(tenantContext(input), input.params.id) } }),

  updateWebhook: async (input) => ({
    status: 200,
    body: { data: await webhooks.updateWebhook(tenantContext(input), input.params.id, input.body, policy(input.deps.config)) },
  }),

  deleteWebhook: async (input) => {
    await webhooks.deleteWebhook(tenantContext(input), input.params.id);
    return { status: 204 };
  },

  listWebhookDeliveries: async (input) => {
    const page = pageRequestOf(input.query);
    const result = await webhooks.listDeliveries(tenantContext(input), input.params.id, input.query.status, page);
    return { status: 200, body: pageOf(input, page, result) };
  },

  redeliverWebhookDelivery: async (input) => ({
    status: 202,
    body: { data: await webhooks.redeliver(tenantContext(input), input.params.id, input.params.deliveryId) },
  }),

  pingWebhook: async (input) => ({ status: 202, body: { data: await webhooks.ping(tenantContext(input), input.params.id) } }),
} satisfies HandlerMap;
