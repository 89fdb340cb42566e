/** The StockLevel and StockMovement types and the stock and stock_movements queries of the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { afterArg, dateArg, idArg, pageLimit, requireModule, textArg, timeArg } from '../../platform/graphql/context.js';
import { queryParameterMaxLength, schemaEnum } from '../../platform/openapi/document.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { StockLevel } from './stock.repository.js';
import { listMovements, stockAsOfAfter, type StockAsOfWithId, type StockMovement } from './ledger.service.js';
import { stockAfter } from './stock.service.js';

export const LOT = 'The lot; null for an article that does not track lots.';
export const EXPIRY = 'The expiry date (YYYY-MM-DD); null for an article that does not track expiry.';

export const StockTypeEnum = builder.enumType('StockType', { values: ['STOC_OK', 'STOC_DEFECT', 'STOC_QUARANTINE'] as const });

const MovementCauseEnum = builder.enumType('MovementCause', {
  description: 'What made a movement. New causes may be added.',
  values: schemaEnum('MovementCause') as Array<Schema<'MovementCause'>>,
});

/** REST's longest `lot` filter (the LotFilter parameter of both stock reads). */
const LOT_MAX_LENGTH = queryParameterMaxLength('listStock', 'lot');
const LOT_FILTER = 'Only rows of this lot (compared exactly).';
/** REST's longest article code in the `article_code` filter of GET /api/stock. */
const ARTICLE_CODE_MAX_LENGTH = queryParameterMaxLength('listStock', 'article_code');

export const StockLevelType = builder.objectRef<StockLevel>('StockLevel').implement({
  description: 'Stock of one article of one client, in one warehouse, of one stock type, lot and expiry date.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    warehouse_id: t.exposeInt('warehouse_id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
    lot: t.exposeString('lot', { nullable: true, description: LOT }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: EXPIRY }),
    quantity: t.exposeFloat('quantity', { description: 'On hand.' }),
    reserved: t.exposeFloat('reserved', { description: 'Held by open sales orders (for an article that tracks lots or expiry, what the allocation, earliest expiry first, assigns to this row).' }),
    available: t.exposeFloat('available', { description: 'max(quantity - reserved, 0); 0 once the expiry date has passed.' }),
    backordered: t.exposeFloat('backordered', { description: 'max(reserved - quantity, 0).' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

/** The filters GET /api/stock and GET /api/stock/as-of share. */
const balanceFilterArgs = builder.args((t) => ({
  article_id: t.int(),
  article_code: t.string({ description: 'Only rows of the article with this code.' }),
  warehouse_id: t.int(),
  stock_type: t.field({ type: StockTypeEnum }),
  lot: t.string({ description: LOT_FILTER }),
  expires_before: t.string({ description: 'Only rows with an expiry date before this day (YYYY-MM-DD); rows without an expiry date are left out.' }),
}));

type BalanceFilterArgs = { [K in 'article_id' | 'warehouse_id']?: number | null } & { [K in 'article_code' | 'lot' | 'expires_before']?: string | null } & {
  stock_type?: Schema<'StockType'> | null;
};

/** The shared filters as the services take them, each held to REST's rules (BAD_USER_INPUT on its argument). */
function balanceFilters(args: BalanceFilterArgs) {
  const articleId = idArg(args.article_id, 'article_id');
  const articleCode = textArg(args.article_code, 'article_code', ARTICLE_CODE_MAX_LENGTH);
  return {
    article_id: articleId === undefined ? undefined : [articleId],
    article_code: articleCode === undefined ? undefined : [articleCode],
    warehouse_id: idArg(args.warehouse_id, 'warehouse_id'),
    stock_type: args.stock_type ?? undefined,
    lot: textArg(args.lot, 'lot', LOT_MAX_LENGTH),
    expires_before: dateArg(args.expires_before, 'expires_before'),
  };
}

const StockAsOfType = builder.objectRef<StockAsOfWithId>('StockAsOfRow').implement({
  description: 'A balance as it stood at the instant asked for.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The stock row (as `stock` answers it); pass the last one seen as `after`.' }),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    warehouse_id: t.exposeInt('warehouse_id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
    lot: t.exposeString('lot', { nullable: true, description: LOT }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: EXPIRY }),
    quantity: t.exposeFloat('quantity', { description: 'On hand at that instant.' }),
  }),
});

builder.queryFields((t) => ({
  stock_as_of: t.field({
    type: [StockAsOfType],
    description: 'The stock rows in scope as they stood at `at`, read from the ledger as GET /api/stock/as-of reads them, by id; pass the last id seen as `after`. Needs the stock module.',
    args: {
      at: t.arg({ type: 'DateTime', required: true, description: 'The instant.' }),
      limit: t.arg.int({ description: 'Rows to return, 1 to 200 (default 25).' }),
      ...balanceFilterArgs,
      after: t.arg.int({ description: 'The last stock row id seen.' }),
    },
    resolve: (_root, args, ctx) => {
      requireModule(ctx, 'stock');
      return stockAsOfAfter(ctx.tenant, timeArg(args.at, 'at'), balanceFilters(args), { after: afterArg(args.after), limit: pageLimit(args.limit, 25, 200) });
    },
  }),
  stock: t.field({
    type: [StockLevelType],
    description: 'Stock levels in scope by id; pass the last id seen as `after` for the next page. Needs the stock module.',
    args: {
      limit: t.arg.int({ description: 'Rows to return, 1 to 200 (default 25).' }),
      ...balanceFilterArgs,
      updated_since: t.arg({ type: 'DateTime', description: 'Only rows updated at or after this time (inclusive), as GET /api/stock takes it.' }),
      after: t.arg.int({ description: 'The last stock row id seen.' }),
    },
    resolve: (_root, args, ctx) => {
      requireModule(ctx, 'stock');
      return stockAfter(
        ctx.tenant,
        { ...balanceFilters(args), updated_since: timeArg(args.updated_since, 'updated_since') },
        { after: afterArg(args.after), limit: pageLimit(args.limit, 25, 200) },
      );
    },
  }),
}));

export const StockDocumentType = builder.objectRef<{ type: string; id: number }>('StockDocument').implement({
  description: 'The document behind a movement.',
  fields: (t) => ({
    type: t.exposeString('type', {
      description:
        '`reception` (a reception or its correction), `sales_order` (its reservation, or its move to `delivered`), `shipment`, `return`, `adjustment` or `transfer` (new kinds may be added), as REST shows it.',
    }),
    id: t.exposeInt('id'),
  }),
});

const StockMovementType = builder.objectRef<StockMovement>('StockMovement').implement({
  description: 'One entry of the stock ledger: a change of one balance on hand, with the balance after it.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    client_3pl_id: t.exposeInt('client_3pl_id'),
    warehouse_id: t.exposeInt('warehouse_id'),
    article_id: t.exposeInt('article_id'),
    article_code: t.exposeString('article_code'),
    stock_type: t.expose('stock_type', { type: StockTypeEnum }),
    lot: t.exposeString('lot', { nullable: true, description: LOT }),
    expiry_date: t.exposeString('expiry_date', { nullable: true, description: EXPIRY }),
    delta: t.exposeFloat('delta', { description: 'The change on hand (negative when stock fell).' }),
    quantity_after: t.exposeFloat('quantity_after', { description: 'The balance on hand right after this movement.' }),
    cause: t.exposeString('cause'),
    document: t.expose('document', { type: StockDocumentType, nullable: true }),
  }),
});

builder.queryFields((t) => ({
  stock_movements: t.field({
    type: [StockMovementType],
    description:
      'The stock ledger in feed order, as GET /api/stock/movements reads it: pass the id of the last movement seen as `after` for the next page. Needs the stock module.',
    args: {
      limit: t.arg.int({ description: 'Rows to return, 1 to 200 (default 25).' }),
      after: t.arg.int({ description: 'The id of the last movement seen (at least 1, as REST takes it); leave it out to start at the beginning.' }),
      article_id: t.arg.int(),
      warehouse_id: t.arg.int(),
      stock_type: t.arg({ type: StockTypeEnum }),
      cause: t.arg({ type: MovementCauseEnum }),
      lot: t.arg.string({ description: LOT_FILTER }),
      since: t.arg({ type: 'DateTime', description: 'Only movements created at or after this time; the first page starts there.' }),
      until: t.arg({ type: 'DateTime', description: 'Only movements created at or before this time.' }),
    },
    resolve: async (_root, args, ctx) => {
      requireModule(ctx, 'stock');
      const page = await listMovements(ctx.tenant, {
        // A movement's id, as REST's `after` (minimum 1): 0 or below is out of its range, not an unknown movement.
        after: idArg(args.after, 'after'),
        article_id: idArg(args.article_id, 'article_id'),
        warehouse_id: idArg(args.warehouse_id, 'warehouse_id'),
        stock_type: args.stock_type ?? undefined,
        cause: args.cause ?? undefined,
        lot: textArg(args.lot, 'lot', LOT_MAX_LENGTH),
        since: timeArg(args.since, 'since'),
        until: timeArg(args.until, 'until'),
        perPage: pageLimit(args.limit, 25, 200),
      });
      return page.data;
    },
  }),
}));
