/** The LotTrace type and the lot_trace query of the GraphQL schema: GET /api/lots/trace. */
import { builder } from '../../platform/graphql/builder.js';
import { idArg, requireModule, textArg } from '../../platform/graphql/context.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { queryParameterMaxLength } from '../../platform/openapi/document.js';
import { EXPIRY, StockDocumentType, StockLevelType, StockTypeEnum } from '../stock/stock.graphql.js';
import { traceLot, type LotTrace } from './lots.service.js';

type Entry = Schema<'LotTraceEntry'>;
type Shipment = Schema<'LotTraceShipment'>;

const ENTRY = 'One movement of the lot, with the document that made it.';
/** REST's longest `lot` of GET /api/lots/trace. */
const LOT_MAX_LENGTH = queryParameterMaxLength('traceLot', 'lot');

/** The fields every movement of the trace has (a shipment adds its order's). */
const EntryFields = builder.interfaceRef<Entry>('LotTraceMovement').implement({
  description: ENTRY,
  fields: (t) => ({
    movement_id: t.exposeInt('movement_id', { description: 'The movement, as stock_movements answers it.' }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    warehouse_id: t.exposeInt('warehouse_id'),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: EXPIRY }),
    delta: t.exposeFloat('delta', { description: 'The change on hand (negative when the lot left).' }),
    document: t.expose('document', { type: StockDocumentType, nullable: true }),
  }),
});

const EntryType = builder.objectRef<Entry>('LotTraceEntry').implement({ description: ENTRY, interfaces: [EntryFields], isTypeOf: (row) => !('sales_order_id' in (row as object)) });

const ShipmentType = builder.objectRef<Shipment>('LotTraceShipment').implement({
  description: `${ENTRY} A shipment (or a delivery) that took some of the lot, with its order and partner.`,
  interfaces: [EntryFields],
  isTypeOf: (row) => 'sales_order_id' in (row as object),
  fields: (t) => ({
    shipment_id: t.exposeInt('shipment_id', { nullable: true, description: 'The shipment; null for a delivery recorded as a status move before shipments existed.' }),
    sales_order_id: t.exposeInt('sales_order_id'),
    sales_order_internal_code: t.exposeString('sales_order_internal_code'),
    partner_id: t.exposeInt('partner_id', { description: 'The client partner the goods went to.' }),
    partner_name: t.exposeString('partner_name'),
    tracking_number: t.exposeString('tracking_number', { nullable: true }),
    shipped_at: t.expose('shipped_at', { type: 'DateTime', description: 'When the goods left (the movement\'s time for a delivery without a shipment).' }),
  }),
});

const LotTraceType = builder.objectRef<LotTrace>('LotTrace').implement({
  description: 'Where one lot of an article came from, where it went and where it is now: the answer to a recall.',
  fields: (t) => ({
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    lot: t.exposeString('lot'),
    receptions: t.expose('receptions', { type: [EntryType], description: 'Movements of receptions and their corrections.' }),
    shipments: t.expose('shipments', { type: [ShipmentType], description: 'What left for sales orders, with the order and its partner.' }),
    returns: t.expose('returns', { type: [EntryType] }),
    adjustments: t.expose('adjustments', { type: [EntryType] }),
    transfers: t.expose('transfers', { type: [EntryType], description: 'Both movements of each transfer line (off one place, onto another).' }),
    balances: t.expose('balances', { type: [StockLevelType], description: 'The lot\'s stock rows now, as stock shows them.' }),
  }),
});

builder.queryFields((t) => ({
  lot_trace: t.field({
    type: LotTraceType,
    description:
      'The trace of one lot of an article that tracks lots, as GET /api/lots/trace answers it; empty lists for a lot nobody received. Needs the stock module.',
    args: {
      article_id: t.arg.int({ required: true, description: 'An article in scope that tracks lots (BAD_USER_INPUT for one that does not).' }),
      lot: t.arg.string({ required: true, description: 'The lot (compared exactly).' }),
    },
    resolve: (_root, args, ctx) => {
      requireModule(ctx, 'stock');
      return traceLot(ctx.tenant, idArg(args.article_id, 'article_id'), textArg(args.lot, 'lot', LOT_MAX_LENGTH, true));
    },
  }),
}));
