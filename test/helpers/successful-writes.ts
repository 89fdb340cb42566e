/**
 * For every write operation of the document: a request that succeeds in a world (its path
 * parameters and body), and who sends it. The mass-assignment sweep reads every 2xx body for
 * credentials and internal columns; it fails for a write without an entry here. Documents come
 * from the fixtures of test/fixtures/.
 */
import type { ContractOperation, OperationId } from '../../src/platform/openapi/document.js';
import { api, type Api } from './api.js';
import { createToken, TEST_PASSWORD, unique, type World } from './factories.js';
import { ETSM_TEST_TOKEN, MDM_TEST_TOKEN, type Harness } from './harness.js';
import { receivedOrder } from '../fixtures/receptions.js';
import { createSalesOrder } from '../fixtures/sales-orders.js';
import { pickingOrder } from '../fixtures/shipments.js';
import { subscription } from '../fixtures/webhooks.js';
import { adjustmentBody, deltaLine } from '../fixtures/stock-adjustments.js';
import { transferLine } from '../fixtures/stock-transfers.js';

type Params = Record<string, number | string>;

export interface WriteRequest {
  params?: Params;
  body?: unknown;
  /** A bearer token of its own (the revocation revokes it). */
  token?: string;
}

/** An agent calling `op` as its caller would: a provider admin acting for the client, an integration token, or no one. */
export function callerOf(h: Harness, world: World, op: ContractOperation, token?: string): Api {
  const scheme = op.security.flat()[0];
  const company = op.companyHeader === 'absent' ? undefined : world.client.id;
  if (scheme === 'etsmToken') return api(h.app, { token: ETSM_TEST_TOKEN, company });
  if (scheme === 'mdmToken') return api(h.app, { token: MDM_TEST_TOKEN, company });
  if (scheme === 'bearerAuth') return api(h.app, { token: token ?? world.users.providerAdmin.token, company });
  return api(h.app, {});
}

const line = (w: World, quantity = 1) => ({ article_id: w.articles.client.id, um3pl: 'BUC', quantity_um3pl: quantity });

async function newSalesOrder(w: World): Promise<number> {
  return (await createSalesOrder(w, [line(w)], { internal_code: unique('SO-MA-') }, 'admin')).id;
}

/** 1 more of the world's purchase order (10 ordered, 4 received by receivedOrder). */
async function receiveOne(w: World): Promise<WriteRequest> {
  const order = await receivedOrder(w, w.client.id);
  return { body: { purchase_order_id: order.orderId, warehouse_id: w.warehouses[0], selected_items: [{ po_item_id: order.itemId, quantity_um3pl: 1 }] } };
}

export const successfulWrites: Partial<Record<OperationId, (w: World, h: Harness) => Promise<WriteRequest>>> = {
  createToken: async (w) => ({ body: { email: w.users.operator.email, password: TEST_PASSWORD } }),
  revokeToken: async (w, h) => ({ token: await createToken(h.db, w.users.operator.id) }),
  createArticle: async () => ({ body: { article_code: unique('MA-'), description: 'Mass assignment', um3pl: 'BUC' } }),
  bulkUpsertArticles: async (w) => ({ body: { items: [{ article_code: unique('MA-B-'), description: 'Mass assignment', um3pl: 'BUC', client_3pl_id: w.client.id }] } }),
  updateArticle: async (w) => ({ params: { id: w.articles.client.id }, body: { description: 'Changed' } }),
  patchArticleByCode: async (w) => ({ params: { articleCode: w.articles.client.code }, body: { name: 'Patched' } }),
  createPurchaseOrder: async (w) => ({ body: { partner_id: w.partners.supplier, internal_code: unique('PO-MA-'), items: [line(w, 5)] } }),
  updatePurchaseOrder: async (w) => ({ params: { id: (await receivedOrder(w, w.client.id)).orderId }, body: { notes: 'Changed' } }),
  createReception: receiveOne,
  updateReception: async (w) => ({ params: { id: (await receivedOrder(w, w.client.id)).receptionId }, body: { notes: 'Changed' } }),
  bulkCreateSalesOrders: async (w) => ({ body: { items: [{ partner_id: w.partners.client, source_warehouse_id: w.warehouses[0], internal_code: unique('SO-MA-B-'), items: [line(w)] }] } }),
  createSalesOrder: async (w) => ({ body: { partner_id: w.partners.client, source_warehouse_id: w.warehouses[0], internal_code: unique('SO-MA-'), items: [line(w)] } }),
  updateSalesOrder: async (w) => ({ params: { id: await newSalesOrder(w) }, body: { notes: 'Changed' } }),
  changeSalesOrderStatus: async (w) => ({ params: { id: await newSalesOrder(w) }, body: { status: 'picking' } }),
  createShipment: async (w) => ({ params: { id: (await pickingOrder(w, w.client.id)).id }, body: { carrier: 'DHL', tracking_number: unique('JD'), tracking_url: 'https://www.dhl.com/track?id=1' } }),
  holdSalesOrder: async (w) => ({ params: { id: await newSalesOrder(w) }, body: { reason: 'Credit check' } }),
  releaseSalesOrder: async (w) => {
    const id = await newSalesOrder(w);
    await w.as('operator').post(`/api/sales-orders/${id}/hold`).send({ reason: 'Credit check' }).expect(200);
    return { params: { id } };
  },
  createStockAdjustment: async (w) => ({ body: adjustmentBody(w, [deltaLine(w.articles.client, 2)], { reason: 'found', internal_code: unique('ADJ-MA-') }) }),
  createStockTransfer: async (w) => {
    await w
      .as('providerAdmin', w.client.id)
      .post('/api/stock/adjustments')
      .send(adjustmentBody(w, [deltaLine(w.articles.client, 1)], { reason: 'found' }))
      .expect(201);
    return { body: { items: [transferLine(w.articles.client, 1, [w.warehouses[0]!, 'STOC_OK'], [w.warehouses[1]!, 'STOC_OK'])] } };
  },
  createReturn: async (w) => ({ body: { partner_id: w.partners.client, warehouse_id: w.warehouses[0], reason: 'Damaged', items: [line(w)] } }),
  createWebhook: async () => ({ body: { url: 'http://127.0.0.1:9/hooks', events: ['*'] } }),
  updateWebhook: async (w) => ({ params: { id: (await subscription(w, w.client.id)).webhookId }, body: { description: 'Changed' } }),
  deleteWebhook: async (w) => ({ params: { id: (await subscription(w, w.client.id)).webhookId } }),
  redeliverWebhookDelivery: async (w) => {
    const made = await subscription(w, w.client.id);
    return { params: { id: made.webhookId, deliveryId: made.deliveryId } };
  },
  pingWebhook: async (w) => ({ params: { id: (await subscription(w, w.client.id)).webhookId } }),
  createEtsmReception: receiveOne,
  patchMdmArticleByCode: async (w) => ({ params: { articleCode: w.articles.client.code }, body: { title: 'Patched' } }),
  postGraphql: async () => ({ body: { query: '{ articles(limit: 5) { id article_code } warehouses { id } }' } }),
};

/** Path parameters (and required query parameters) of a read of the world's own resources (the cross-tenant sweep's resources, asked for by their owner). */
export const readParams: Record<string, (w: World) => Params | Promise<Params>> = {
  '/api/integrations/mdm/clients/{client3plId}/articles': (w) => ({ client3plId: w.client.id }),
  '/api/stock/as-of': () => ({ at: '2999-01-01T00:00:00Z' }),
};
