/** The Shipment types and their queries in the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { idArg, textArg, timeArg } from '../../platform/graphql/context.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import { queryParameterMaxLength } from '../../platform/openapi/document.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { findShipment, shipmentsAfter } from './shipments.service.js';

/** REST's rule for the same parameter (GET /api/shipments?tracking_number=). */
const TRACKING_NUMBER_MAX_LENGTH = queryParameterMaxLength('listShipments', 'tracking_number');

const LotQuantityType = builder.objectRef<Schema<'LotQuantity'>>('LotQuantity').implement({
  description: 'What a line took of one lot.',
  fields: (t) => ({
    lot: t.exposeString('lot', { nullable: true, description: 'The lot; null for an article that does not track lots.' }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: 'The expiry date (YYYY-MM-DD); null when not tracked.' }),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
  }),
});

const ShipmentLineType = builder.objectRef<Schema<'ShipmentLine'>>('ShipmentLine').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    so_item_id: t.exposeInt('so_item_id', { description: 'The sales order line it ships.' }),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
    // Counted at 2 lots a line: FEFO opens the next lot only when the earlier one runs out, so a line takes one, rarely more
    // (its lines already count 50 a shipment). A page of 100 shipments with every field of lines and lots stays under the
    // limit, as REST answers it in one page; a line that took more lots still answers them all.
    lots: t.expose('lots', {
      type: [LotQuantityType],
      description: 'The lots the line took, earliest expiry first (empty for an article that tracks neither).',
      complexity: { field: 1, multiplier: 2 },
    }),
  }),
});

const ShipmentType = builder.objectRef<Schema<'Shipment'>>('Shipment').implement({
  description: 'What left the warehouse for a sales order, with its carrier and tracking.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    sales_order_id: t.exposeInt('sales_order_id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    carrier: t.exposeString('carrier', { nullable: true }),
    service: t.exposeString('service', { nullable: true }),
    tracking_number: t.exposeString('tracking_number', { nullable: true }),
    tracking_url: t.exposeString('tracking_url', { nullable: true }),
    shipped_at: t.expose('shipped_at', { type: 'DateTime' }),
    internal_code: t.exposeString('internal_code', { nullable: true }),
    items: t.expose('items', { type: [ShipmentLineType] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

/** A shipment as its sales order lists it (`SalesOrder.shipments`); `shipment(id)` has its lines. */
export const ShipmentSummaryType = builder.objectRef<Schema<'ShipmentSummary'>>('ShipmentSummary').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    carrier: t.exposeString('carrier', { nullable: true }),
    tracking_number: t.exposeString('tracking_number', { nullable: true }),
    tracking_url: t.exposeString('tracking_url', { nullable: true }),
    shipped_at: t.expose('shipped_at', { type: 'DateTime' }),
  }),
});

listAfter('shipments', {
  type: ShipmentType,
  description: 'Shipments in scope by id; pass the last id seen as `after`. Needs the outbound module.',
  module: 'outbound',
  args: builder.args((t) => ({
    sales_order_id: t.int({ description: 'Only the shipments of this sales order.' }),
    tracking_number: t.string({ description: 'Only the shipments with this tracking number (exact).' }),
    updated_since: t.field({ type: 'DateTime', description: 'Only shipments updated at or after this time (inclusive), as GET /api/shipments takes it.' }),
  })),
  list: (tenant, args, page) =>
    shipmentsAfter(
      tenant,
      {
        sales_order_id: idArg(args.sales_order_id, 'sales_order_id'),
        tracking_number: textArg(args.tracking_number, 'tracking_number', TRACKING_NUMBER_MAX_LENGTH),
        updated_since: timeArg(args.updated_since, 'updated_since'),
      },
      page,
    ),
});

oneById('shipment', { type: ShipmentType, description: 'One shipment in scope, or null. Needs the outbound module.', module: 'outbound', find: findShipment });
