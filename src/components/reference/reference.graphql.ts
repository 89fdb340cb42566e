/** The Partner and Warehouse types and their queries in the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { afterArg, pageLimit, searchArg } from '../../platform/graphql/context.js';
import { queryParameterMaxLength } from '../../platform/openapi/document.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import * as reference from './reference.service.js';

/** REST's rule for the same parameter (GET /api/partners?search=). */
const SEARCH_MAX_LENGTH = queryParameterMaxLength('listPartners', 'search');

const PartnerTypeEnum = builder.enumType('PartnerType', { values: ['supplier', 'client'] as const });

const PartnerType = builder.objectRef<Schema<'Partner'>>('Partner').implement({
  description: 'A supplier or client partner of a client company.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    type: t.expose('type', { type: PartnerTypeEnum }),
    code: t.exposeString('code', { nullable: true }),
    name: t.exposeString('name'),
    vat_code: t.exposeString('vat_code', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    address: t.exposeString('address', { nullable: true }),
    active: t.exposeBoolean('active'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

const WarehouseType = builder.objectRef<Schema<'Warehouse'>>('Warehouse').implement({
  description: 'A warehouse of the 3PL provider.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    company_id: t.exposeInt('company_id', { description: 'The provider that runs the warehouse.' }),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    address: t.exposeString('address', { nullable: true }),
    active: t.exposeBoolean('active'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  partners: t.field({
    type: [PartnerType],
    description: 'Partners in scope by id; pass the last id seen as `after` for the next page.',
    args: {
      limit: t.arg.int({ description: 'Partners to return, 1 to 100 (default 25).' }),
      type: t.arg({ type: PartnerTypeEnum }),
      search: t.arg.string({ description: "Part of the name, code or VAT code. Case is ignored (Unicode's too, so `öl` finds `ÖL-5L`); accents and every other character must match." }),
      after: t.arg.int({ description: 'The last partner id seen.' }),
    },
    resolve: (_root, args, ctx) =>
      reference.partnersAfter(ctx.tenant, {
        after: afterArg(args.after),
        type: args.type ?? undefined,
        search: searchArg(args.search, SEARCH_MAX_LENGTH),
        limit: pageLimit(args.limit, 25, 100),
      }),
  }),
  warehouses: t.field({
    type: [WarehouseType],
    description: 'Warehouses of the provider in scope, by id.',
    args: {
      limit: t.arg.int({ description: 'Warehouses to return, 1 to 100 (default 25).' }),
      after: t.arg.int({ description: 'The last warehouse id seen.' }),
    },
    resolve: (_root, args, ctx) =>
      reference.warehousesAfter(ctx.tenant, { after: afterArg(args.after), limit: pageLimit(args.limit, 25, 100) }),
  }),
}));

oneById('partner', { type: PartnerType, description: 'One partner in scope, or null.', find: reference.findPartner });

oneById('warehouse', { type: WarehouseType, description: 'One warehouse of the provider in scope, or null.', find: reference.findWarehouse });
