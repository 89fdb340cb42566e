/** The PurchaseOrder type and its query in the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import { orderFilterArgs, orderFiltersOf } from '../documents/order-filters.graphql.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { findPurchaseOrder, purchaseOrdersAfter } from './purchase-orders.service.js';

const StatusEnum = builder.enumType('PurchaseOrderStatus', { values: ['open', 'partially_received', 'received', 'cancelled', 'closed'] as const });

const ItemType = builder.objectRef<Schema<'PurchaseOrderItem'>>('PurchaseOrderItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The po_item_id receptions use.' }),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
    received_quantity_um3pl: t.exposeFloat('received_quantity_um3pl'),
  }),
});

const PurchaseOrderType = builder.objectRef<Schema<'PurchaseOrder'>>('PurchaseOrder').implement({
  description: 'An order to a supplier partner.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    partner_id: t.exposeInt('partner_id'),
    internal_code: t.exposeString('internal_code'),
    status: t.expose('status', { type: StatusEnum }),
    notes: t.exposeString('notes', { nullable: true }),
    external_reference: t.exposeString('external_reference', { nullable: true }),
    items: t.expose('items', { type: [ItemType] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

const filters = orderFiltersOf('listPurchaseOrders');

listAfter('purchase_orders', {
  type: PurchaseOrderType,
  description: 'Purchase orders in scope by id; pass the last id seen as `after`. Needs the inbound module.',
  module: 'inbound',
  args: { ...builder.args((t) => ({ status: t.field({ type: StatusEnum }) })), ...orderFilterArgs('/api/purchase-orders') },
  list: (tenant, args, page) => purchaseOrdersAfter(tenant, { status: args.status ?? undefined, ...filters(args) }, page),
});

oneById('purchase_order', { type: PurchaseOrderType, description: 'One purchase order in scope, or null. Needs the inbound module.', module: 'inbound', find: findPurchaseOrder });
