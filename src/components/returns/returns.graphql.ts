/** The Return type and its query in the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { idArg, timeArg } from '../../platform/graphql/context.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { StockTypeEnum } from '../stock/stock.graphql.js';
import { findReturn, returnsAfter } from './returns.service.js';

const ReturnItemType = builder.objectRef<Schema<'ReturnItem'>>('ReturnItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
    lot: t.exposeString('lot', { nullable: true, description: 'The lot; null for an article that does not track lots.' }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: 'The expiry date (YYYY-MM-DD); null for an article that does not track expiry.' }),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
  }),
});

const ReturnType = builder.objectRef<Schema<'Return'>>('Return').implement({
  description: 'Goods returned by a client partner.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    partner_id: t.exposeInt('partner_id'),
    warehouse_id: t.exposeInt('warehouse_id'),
    sales_order_id: t.exposeInt('sales_order_id', { nullable: true }),
    internal_code: t.exposeString('internal_code', { nullable: true }),
    reason: t.exposeString('reason', { nullable: true }),
    items: t.expose('items', { type: [ReturnItemType] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

listAfter('returns', {
  type: ReturnType,
  description: 'Returns in scope by id; pass the last id seen as `after`. Needs the returns module.',
  module: 'returns',
  args: builder.args((t) => ({
    sales_order_id: t.int({ description: 'Only the returns against this sales order.' }),
    updated_since: t.field({ type: 'DateTime', description: 'Only returns updated at or after this time (inclusive), as GET /api/returns takes it.' }),
  })),
  list: (tenant, args, page) =>
    returnsAfter(tenant, { sales_order_id: idArg(args.sales_order_id, 'sales_order_id'), updated_since: timeArg(args.updated_since, 'updated_since') }, page),
});

oneById('return', { type: ReturnType, description: 'One return in scope, or null. Needs the returns module.', module: 'returns', find: findReturn });
