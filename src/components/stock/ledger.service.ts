/**
 * The stock ledger for readers: GET /api/stock/movements (every committed movement once, in feed
 * order, src/platform/feeds/sequencer.ts) and GET /api/stock/as-of (the balances at an instant).
 */
import type { PageRequest } from '../../kernel/paging.js';
import type { Paged } from '../../platform/db/queries.js';
import { InputError } from '../../platform/errors.js';
import { hasUnstamped, stampAll, STAMP_BATCHES_PER_READ, STOCK_MOVEMENTS_FEED } from '../../platform/feeds/sequencer.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import * as ledger from './ledger.repository.js';
import type { MovementFilters, StockMovement } from './ledger.repository.js';
import * as repository from './stock.repository.js';
import type { StockAsOf, StockAsOfWithId, StockFilters } from './stock.repository.js';

export type { StockMovement, StockAsOf, StockAsOfWithId };
export type MovementPage = Schema<'StockMovementFeedPage'>;

const messages = {
  unknownAfter: (id: number) => `No movement ${id} in this feed: pass the id of a movement it answered; leave after out to start from the beginning.`,
};

export interface MovementQuery {
  after?: number;
  perPage: number;
  article_id?: number;
  warehouse_id?: number;
  stock_type?: Schema<'StockType'>;
  cause?: Schema<'MovementCause'>;
  lot?: string;
  since?: string;
  until?: string;
}

/** A page of the feed: the movements after `after` (or from `since`), and the cursor of the next page while one follows. */
export async function listMovements(ctx: TenantContext, query: MovementQuery): Promise<MovementPage> {
  if (await hasUnstamped(ctx.db, STOCK_MOVEMENTS_FEED)) await stampAll(ctx.db, STOCK_MOVEMENTS_FEED, STAMP_BATCHES_PER_READ);
  const filters: MovementFilters = {
    articleId: query.article_id,
    warehouseId: query.warehouse_id,
    stockType: query.stock_type,
    cause: query.cause,
    lot: query.lot,
    since: inputTime(query.since, 'since'),
    until: inputTime(query.until, 'until'),
  };
  let afterSeq = 0;
  if (query.after !== undefined) {
    const place = await ledger.placeOf(ctx.db, ctx.scope, query.after);
    if (place === undefined) throw InputError.field('after', messages.unknownAfter(query.after));
    afterSeq = place;
  }
  if (filters.since !== undefined) {
    const before = await ledger.placeBefore(ctx.db, filters.since);
    if (before === undefined) return { data: [], meta: { next_cursor: null } };
    afterSeq = Math.max(afterSeq, before);
  }
  // One row more than the page says whether anything follows yet.
  const rows = await ledger.movementsAfter(ctx.db, ctx.scope, { afterSeq, filters, limit: query.perPage + 1 });
  const data = rows.slice(0, query.perPage);
  return { data, meta: { next_cursor: rows.length > query.perPage ? data[data.length - 1]!.id : null } };
}

/** The balances of GET /api/stock as they stood at `at`. */
export function listStockAsOf(ctx: TenantContext, at: string, filters: Omit<StockFilters, 'updated_since'>, page: PageRequest): Promise<Paged<StockAsOf>> {
  return repository.listStockAsOf(ctx.db, ctx.scope, filters, page, inputTime(at, 'at')!);
}

/** The balances with ids above `after` that pass the filters, as they stood at `at`, by id (GraphQL's `stock_as_of`). */
export function stockAsOfAfter(ctx: TenantContext, at: string, filters: Omit<StockFilters, 'updated_since'>, options: { after?: number; limit: number }): Promise<StockAsOfWithId[]> {
  return repository.stockAsOfAfter(ctx.db, ctx.scope, filters, options, inputTime(at, 'at')!);
}
