/** POST /api/sales-orders/bulk: each item a sales order created as a single create would (platform/bulk.ts runs the items), in a savepoint of its own. */
import { bulkWriter } from '../../platform/bulk.js';
import { inSavepoint } from '../../platform/db/transaction.js';
import { createSalesOrder } from './sales-orders.service.js';

export const bulkCreateSalesOrders = bulkWriter('SalesOrderCreate', {
  write: async (ctx, body) => ({ status: 'created', id: (await inSavepoint(ctx.db, (savepoint) => createSalesOrder({ ...ctx, db: savepoint }, body))).id }),
});
