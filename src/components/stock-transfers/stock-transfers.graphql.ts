/** The StockTransfer type and its queries in the GraphQL schema: GET /api/stock/transfers and its filters, and one by id. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { idArg, textArg, timeArg } from '../../platform/graphql/context.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import { queryParameterMaxLength } from '../../platform/openapi/document.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { EXPIRY, LOT, StockTypeEnum } from '../stock/stock.graphql.js';
import { findStockTransfer, stockTransfersAfter } from './stock-transfers.service.js';

const INTERNAL_CODE_MAX_LENGTH = queryParameterMaxLength('listStockTransfers', 'internal_code');

const PlaceType = builder.objectRef<Schema<'StockPlace'>>('StockPlace').implement({
  description: 'A warehouse and a stock type.',
  fields: (t) => ({ warehouse_id: t.exposeInt('warehouse_id'), stock_type: t.expose('stock_type', { type: StockTypeEnum }) }),
});

const ItemType = builder.objectRef<Schema<'StockTransferItem'>>('StockTransferItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
    from: t.expose('from', { type: PlaceType }),
    to: t.expose('to', { type: PlaceType }),
    lot: t.exposeString('lot', { nullable: true, description: LOT }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: EXPIRY }),
  }),
});

const TransferType = builder.objectRef<Schema<'StockTransfer'>>('StockTransfer').implement({
  description: "Stock of one client moved between stock types, between the provider's warehouses, or both.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    note: t.exposeString('note', { nullable: true }),
    internal_code: t.exposeString('internal_code', { nullable: true }),
    items: t.expose('items', { type: [ItemType] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

listAfter('stock_transfers', {
  type: TransferType,
  description: 'Stock transfers in scope by id, with the filters of GET /api/stock/transfers; pass the last id seen as `after`. Needs the stock module.',
  module: 'stock',
  args: builder.args((t) => ({
    warehouse_id: t.int({ description: 'Only the transfers with a line from or to this warehouse.' }),
    internal_code: t.string({ description: 'Only the transfers with this internal code (exact).' }),
    updated_since: t.field({ type: 'DateTime', description: 'Only transfers updated at or after this time (inclusive), as GET /api/stock/transfers takes it.' }),
  })),
  list: (tenant, args, page) =>
    stockTransfersAfter(
      tenant,
      {
        warehouse_id: idArg(args.warehouse_id, 'warehouse_id'),
        internal_code: textArg(args.internal_code, 'internal_code', INTERNAL_CODE_MAX_LENGTH),
        updated_since: timeArg(args.updated_since, 'updated_since'),
      },
      page,
    ),
});

oneById('stock_transfer', { type: TransferType, description: 'One stock transfer in scope, or null. Needs the stock module.', module: 'stock', find: findStockTransfer });
