/**
 * For every operation with a path parameter: how to find a resource the caller must not see.
 * `otherProvider`: a resource of another provider's world; `siblingClient`: a resource of the
 * other client of the caller's own provider (when the resource belongs to a client), each made
 * by the fixtures of test/fixtures/. The cross-tenant sweep fails for an operation without an entry here.
 */
import type { World } from './factories.js';
import { receivedOrder } from '../fixtures/receptions.js';
import { outboundDocuments } from '../fixtures/returns.js';
import { readyOrder, shipmentOf } from '../fixtures/shipments.js';
import { subscription } from '../fixtures/webhooks.js';
import { clientAdjustment } from '../fixtures/stock-adjustments.js';
import { clientTransfer } from '../fixtures/stock-transfers.js';

type Params = Record<string, number | string>;

export interface TenantResource {
  otherProvider: (other: World) => Params | Promise<Params>;
  siblingClient?: (own: World) => Params | Promise<Params>;
  /**
   * False when no caller may see the resource `otherProvider` names (an installation-wide
   * integration route, where the unseen resource is a company that is not a client).
   */
  visibleToItsOwner?: false;
}

export const tenantResources: Record<string, TenantResource> = {
  '/api/clients/{id}': {
    otherProvider: (other) => ({ id: other.client.id }),
    siblingClient: (own) => ({ id: own.otherClient.id }),
  },
  '/api/partners/{id}': {
    otherProvider: (other) => ({ id: other.partners.supplier }),
    siblingClient: (own) => ({ id: own.partners.otherClientSupplier }),
  },
  '/api/articles/{id}': {
    otherProvider: (other) => ({ id: other.articles.client.id }),
    siblingClient: (own) => ({ id: own.articles.otherClient.id }),
  },
  '/api/articles/by-code/{articleCode}': {
    otherProvider: (other) => ({ articleCode: other.articles.client.code }),
    siblingClient: (own) => ({ articleCode: own.articles.otherClient.code }),
  },
  '/api/integrations/mdm/articles/by-code/{articleCode}': {
    otherProvider: (other) => ({ articleCode: other.articles.client.code }),
    siblingClient: (own) => ({ articleCode: own.articles.otherClient.code }),
  },
  '/api/integrations/mdm/clients/{client3plId}/articles': {
    otherProvider: (other) => ({ client3plId: other.provider.id }),
    visibleToItsOwner: false,
  },
  '/api/purchase-orders/{id}': {
    otherProvider: async (other) => ({ id: (await receivedOrder(other, other.client.id)).orderId }),
    siblingClient: async (own) => ({ id: (await receivedOrder(own, own.otherClient.id)).orderId }),
  },
  '/api/receptions/{id}': {
    otherProvider: async (other) => ({ id: (await receivedOrder(other, other.client.id)).receptionId }),
    siblingClient: async (own) => ({ id: (await receivedOrder(own, own.otherClient.id)).receptionId }),
  },
  '/api/sales-orders/{id}': {
    otherProvider: async (other) => ({ id: (await outboundDocuments(other, other.client.id)).salesOrderId }),
    siblingClient: async (own) => ({ id: (await outboundDocuments(own, own.otherClient.id)).salesOrderId }),
  },
  '/api/sales-orders/{id}/status': {
    otherProvider: async (other) => ({ id: (await outboundDocuments(other, other.client.id)).salesOrderId }),
    siblingClient: async (own) => ({ id: (await outboundDocuments(own, own.otherClient.id)).salesOrderId }),
  },
  '/api/sales-orders/{id}/shipments': {
    otherProvider: async (other) => ({ id: await readyOrder(other, other.client.id, 'ship') }),
    siblingClient: async (own) => ({ id: await readyOrder(own, own.otherClient.id, 'ship') }),
  },
  '/api/sales-orders/{id}/hold': {
    otherProvider: async (other) => ({ id: await readyOrder(other, other.client.id, 'hold') }),
    siblingClient: async (own) => ({ id: await readyOrder(own, own.otherClient.id, 'hold') }),
  },
  '/api/sales-orders/{id}/release': {
    otherProvider: async (other) => ({ id: await readyOrder(other, other.client.id, 'release') }),
    siblingClient: async (own) => ({ id: await readyOrder(own, own.otherClient.id, 'release') }),
  },
  '/api/shipments/{id}': {
    otherProvider: async (other) => ({ id: (await shipmentOf(other, other.client.id)).id }),
    siblingClient: async (own) => ({ id: (await shipmentOf(own, own.otherClient.id)).id }),
  },
  '/api/returns/{id}': {
    otherProvider: async (other) => ({ id: (await outboundDocuments(other, other.client.id)).returnId }),
    siblingClient: async (own) => ({ id: (await outboundDocuments(own, own.otherClient.id)).returnId }),
  },
  '/api/stock/adjustments/{id}': {
    otherProvider: async (other) => ({ id: await clientAdjustment(other, other.client.id) }),
    siblingClient: async (own) => ({ id: await clientAdjustment(own, own.otherClient.id) }),
  },
  '/api/stock/transfers/{id}': {
    otherProvider: async (other) => ({ id: await clientTransfer(other, other.client.id) }),
    siblingClient: async (own) => ({ id: await clientTransfer(own, own.otherClient.id) }),
  },
  '/api/webhooks/{id}': {
    otherProvider: async (other) => ({ id: (await subscription(other, other.client.id)).webhookId }),
    siblingClient: async (own) => ({ id: (await subscription(own, own.otherClient.id)).webhookId }),
  },
  '/api/webhooks/{id}/deliveries': {
    otherProvider: async (other) => ({ id: (await subscription(other, other.client.id)).webhookId }),
    siblingClient: async (own) => ({ id: (await subscription(own, own.otherClient.id)).webhookId }),
  },
  '/api/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    otherProvider: async (other) => subscriptionParams(await subscription(other, other.client.id)),
    siblingClient: async (own) => subscriptionParams(await subscription(own, own.otherClient.id)),
  },
  '/api/webhooks/{id}/ping': {
    otherProvider: async (other) => ({ id: (await subscription(other, other.client.id)).webhookId }),
    siblingClient: async (own) => ({ id: (await subscription(own, own.otherClient.id)).webhookId }),
  },
  '/api/warehouses/{warehouseId}': {
    otherProvider: (other) => ({ warehouseId: other.warehouses[0]! }),
  },
};

function subscriptionParams(made: { webhookId: number; deliveryId: number }): Params {
  return { id: made.webhookId, deliveryId: made.deliveryId };
}
