/** The SalesOrder type and its queries in the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import { orderFilterArgs, orderFiltersOf } from '../documents/order-filters.graphql.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { StockTypeEnum } from '../stock/stock.graphql.js';
import { TRANSITIONS, type SalesOrderStatus } from './sales-orders.rules.js';
import { findSalesOrder, salesOrdersAfter } from './sales-orders.service.js';
import { ShipmentSummaryType } from './shipments.graphql.js';

const StatusEnum = builder.enumType('SalesOrderStatus', { values: Object.keys(TRANSITIONS) as SalesOrderStatus[] });

const LineType = builder.objectRef<Schema<'SalesOrderLine'>>('SalesOrderItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
    delivered_quantity_um3pl: t.exposeFloat('delivered_quantity_um3pl', { description: "What the order's shipments took of this line so far." }),
    lot: t.exposeString('lot', { nullable: true, description: 'The lot the line is pinned to; null when lots are taken earliest expiry first.' }),
  }),
});

const UserType = builder.objectRef<NonNullable<Schema<'StatusChangedBy'>>>('StatusChangedBy').implement({
  fields: (t) => ({ id: t.exposeInt('id'), name: t.exposeString('name'), email: t.exposeString('email') }),
});

const HistoryType = builder.objectRef<Schema<'SalesOrderStatusHistoryEntry'>>('SalesOrderStatusHistoryEntry').implement({
  fields: (t) => ({
    status: t.expose('status', { type: StatusEnum }),
    at: t.expose('at', { type: 'DateTime' }),
    user: t.expose('user', { type: UserType, nullable: true, description: 'Null when an integration moved the order.' }),
  }),
});

const SalesOrderType = builder.objectRef<Schema<'SalesOrder'>>('SalesOrder').implement({
  description: 'An order to a client partner.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    partner_id: t.exposeInt('partner_id'),
    source_warehouse_id: t.exposeInt('source_warehouse_id'),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
    internal_code: t.exposeString('internal_code'),
    status: t.expose('status', { type: StatusEnum }),
    notes: t.exposeString('notes', { nullable: true }),
    external_reference: t.exposeString('external_reference', { nullable: true }),
    on_hold: t.exposeBoolean('on_hold', { description: 'True while the order is held: it then neither ships nor moves, except to cancelled.' }),
    hold_reason: t.exposeString('hold_reason', { nullable: true }),
    items: t.expose('items', { type: [LineType] }),
    shipments: t.expose('shipments', { type: [ShipmentSummaryType], description: 'The shipments of the order, oldest first; `shipment(id)` has their lines.' }),
    // At most 5 entries, one per status along the longest path of the graph (new, picking, picked, partially_delivered, delivered or closed).
    status_history: t.expose('status_history', { type: [HistoryType], complexity: { field: 1, multiplier: 5 } }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

const filters = orderFiltersOf('listSalesOrders');

listAfter('sales_orders', {
  type: SalesOrderType,
  description: 'Sales orders in scope by id; pass the last id seen as `after`. Needs the outbound module.',
  module: 'outbound',
  args: { ...builder.args((t) => ({ status: t.field({ type: StatusEnum }) })), ...orderFilterArgs('/api/sales-orders') },
  list: (tenant, args, page) => salesOrdersAfter(tenant, { status: args.status ?? undefined, ...filters(args) }, page),
});

oneById('sales_order', { type: SalesOrderType, description: 'One sales order in scope, or null. Needs the outbound module.', module: 'outbound', find: findSalesOrder });
