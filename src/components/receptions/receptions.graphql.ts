/** The Reception type and its query in the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { idArg, timeArg } from '../../platform/graphql/context.js';
import { listAfter } from '../../platform/graphql/list-after.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { findReception, receptionsAfter } from './receptions.service.js';

const ReceptionItemType = builder.objectRef<Schema<'ReceptionItem'>>('ReceptionItem').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    po_item_id: t.exposeInt('po_item_id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    um3pl: t.exposeString('um3pl'),
    quantity_um3pl: t.exposeFloat('quantity_um3pl'),
    lot: t.exposeString('lot', { nullable: true, description: 'The lot; null for an article that does not track lots.' }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: 'The expiry date (YYYY-MM-DD); null for an article that does not track expiry.' }),
  }),
});

const ReceptionType = builder.objectRef<Schema<'Reception'>>('Reception').implement({
  description: 'Goods received against a purchase order.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    purchase_order_id: t.exposeInt('purchase_order_id'),
    warehouse_id: t.exposeInt('warehouse_id'),
    internal_code: t.exposeString('internal_code', { nullable: true }),
    notes: t.exposeString('notes', { nullable: true }),
    external_reference: t.exposeString('external_reference', { nullable: true }),
    items: t.expose('items', { type: [ReceptionItemType] }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

listAfter('receptions', {
  type: ReceptionType,
  description: 'Receptions in scope by id; pass the last id seen as `after`. Needs the inbound module.',
  module: 'inbound',
  args: builder.args((t) => ({
    purchase_order_id: t.int({ description: 'Only the receptions against this purchase order.' }),
    updated_since: t.field({ type: 'DateTime', description: 'Only receptions updated at or after this time (inclusive), as GET /api/receptions takes it.' }),
  })),
  list: (tenant, args, page) =>
    receptionsAfter(tenant, { purchase_order_id: idArg(args.purchase_order_id, 'purchase_order_id'), updated_since: timeArg(args.updated_since, 'updated_since') }, page),
});

oneById('reception', { type: ReceptionType, description: 'One reception in scope, or null. Needs the inbound module.', module: 'inbound', find: findReception });
