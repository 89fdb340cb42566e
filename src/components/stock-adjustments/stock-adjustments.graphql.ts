/** The StockAdjustment type and its queries in the GraphQL schema: GET /api/stock/adjustments and its filters, and one by id. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { idArg, textArg, timeArg } from '../../platform/graphql/context.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import { queryParameterMaxLength, schemaEnum } from '../../platform/openapi/document.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { EXPIRY, LOT, StockTypeEnum } from '../stock/stock.graphql.js';
import { findStockAdjustment, stockAdjustmentsAfter } from './stock-adjustments.service.js';

const INTERNAL_CODE_MAX_LENGTH = queryParameterMaxLength('listStockAdjustments', 'internal_code');

const ReasonEnum = builder.enumType('StockAdjustmentReason', {
  description: 'Why stock was adjusted; the reason does not fix the sign of the lines.',
  values: schemaEnum('StockAdjustmentReason') as Array<Schema<'StockAdjustmentReason'>>,
});

const ItemType = builder.objectRef<Schema<'StockAdjustmentItem'>>('StockAdjustmentItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
    lot: t.exposeString('lot', { nullable: true, description: LOT }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: EXPIRY }),
    counted_um3pl: t.exposeFloat('counted_um3pl', { nullable: true, description: 'The count the line gave; null for a line with a delta.' }),
    delta_um3pl: t.exposeFloat('delta_um3pl', { description: 'The change it made on hand (for a count, the count less what was on hand).' }),
    quantity_before: t.exposeFloat('quantity_before', { description: 'On hand just before the line was applied.' }),
    quantity_after: t.exposeFloat('quantity_after', { description: 'On hand just after.' }),
  }),
});

const AdjustmentType = builder.objectRef<Schema<'StockAdjustment'>>('StockAdjustment').implement({
  description: "A correction of one client's stock in one warehouse: counted or changed by a delta, line by line.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    warehouse_id: t.exposeInt('warehouse_id'),
    reason: t.expose('reason', { type: ReasonEnum }),
    note: t.exposeString('note', { nullable: true }),
    internal_code: t.exposeString('internal_code', { nullable: true }),
    items: t.expose('items', { type: [ItemType] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

listAfter('stock_adjustments', {
  type: AdjustmentType,
  description: 'Stock adjustments in scope by id, with the filters of GET /api/stock/adjustments; pass the last id seen as `after`. Needs the stock module.',
  module: 'stock',
  args: builder.args((t) => ({
    warehouse_id: t.int({ description: 'Only the adjustments in this warehouse.' }),
    reason: t.field({ type: ReasonEnum }),
    internal_code: t.string({ description: 'Only the adjustments with this internal code (exact).' }),
    updated_since: t.field({ type: 'DateTime', description: 'Only adjustments updated at or after this time (inclusive), as GET /api/stock/adjustments takes it.' }),
  })),
  list: (tenant, args, page) =>
    stockAdjustmentsAfter(
      tenant,
      {
        warehouse_id: idArg(args.warehouse_id, 'warehouse_id'),
        reason: args.reason ?? undefined,
        internal_code: textArg(args.internal_code, 'internal_code', INTERNAL_CODE_MAX_LENGTH),
        updated_since: timeArg(args.updated_since, 'updated_since'),
      },
      page,
    ),
});

oneById('stock_adjustment', { type: AdjustmentType, description: 'One stock adjustment in scope, or null. Needs the stock module.', module: 'stock', find: findStockAdjustment });
