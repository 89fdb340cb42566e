/**
 * Every operation handler, by operationId. openapi-backend binds them to the document at start-up
 * (contract.ts): an operationId the document does not have fails the start, and so does an
 * operation without a handler here (test/catalog.test.ts checks both).
 */
import type { HandlerMap } from './platform/openapi/handler-types.js';
import { articleHandlers } from './components/articles/articles.handlers.js';
import { authHandlers } from './components/auth/auth.handlers.js';
import { discoveryHandlers } from './components/discovery/discovery.handlers.js';
import { healthHandlers } from './components/health/health.handlers.js';
import { etsmHandlers } from './components/integrations/etsm.handlers.js';
import { lotHandlers } from './components/lots/lots.handlers.js';
import { mdmHandlers } from './components/integrations/mdm.handlers.js';
import { purchaseOrderHandlers } from './components/purchase-orders/purchase-orders.handlers.js';
import { receptionHandlers } from './components/receptions/receptions.handlers.js';
import { returnHandlers } from './components/returns/returns.handlers.js';
import { salesOrderHandlers } from './components/sales-orders/sales-orders.handlers.js';
import { shipmentHandlers } from './components/sales-orders/shipments.handlers.js';
import { stockHandlers } from './components/stock/stock.handlers.js';
import { stockAdjustmentHandlers } from './components/stock-adjustments/stock-adjustments.handlers.js';
import { stockTransferHandlers } from './components/stock-transfers/stock-transfers.handlers.js';
import { webhookHandlers } from './components/webhooks/webhooks.handlers.js';
import { eventHandlers } from './components/events/events.handlers.js';
import { graphqlHandlers } from './graphql/graphql.handlers.js';
import { referenceHandlers } from './components/reference/reference.handlers.js';

export const handlers: HandlerMap = {
  ...discoveryHandlers,
  ...healthHandlers,
  ...authHandlers,
  ...referenceHandlers,
  ...articleHandlers,
  ...mdmHandlers,
  ...stockHandlers,
  ...stockAdjustmentHandlers,
  ...stockTransferHandlers,
  ...lotHandlers,
  ...purchaseOrderHandlers,
  ...receptionHandlers,
  ...etsmHandlers,
  ...salesOrderHandlers,
  ...shipmentHandlers,
  ...returnHandlers,
  ...webhookHandlers,
  ...eventHandlers,
  ...graphqlHandlers,
};
