/** POST /api/sales-orders/bulk: each item a sales order created as a single create would (platform/bulk.ts runs the items). */
import { bulkWriter } from '../../platform/bulk.js';
import { createSalesOrder } from './sales-orders.service.js';

export const bulkCreateSalesOrders = bulkWriter('SalesOrderCreate', async (ctx, body) => ({ status: 'created', id: (await createSalesOrder(ctx, body)).id }));
