/**
 * Stock adjustments: corrections of stock on hand in one warehouse, each line a signed change of
 * one balance or a count that sets it. A balance of an article that tracks lots or expiry dates is
 * one lot and expiry date: every line of such an article names them, whether it adds, takes away
 * or counts (stock of an expired lot may be taken away like any other). The adjustment is checked whole first (client, warehouse,
 * lines, one line per balance, code), then applied line by line in the stock lock order in its
 * own transaction: a line that would take a balance below zero joins the problems, and any
 * problem rolls the whole back. An adjustment may go below what open sales orders reserve: it
 * records what is physically there.
 */
import type { Knex } from 'knex';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { NotFoundError } from '../../platform/errors.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { Problems } from '../../platform/problems.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { clientFor } from '../articles/articles.service.js';
import { resolveLines, type ResolvedLine } from '../documents/document-lines.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { checkWarehouse } from '../reference/reference.service.js';
import { applyStockChange, countStock, inLockOrder, type StockKey } from '../stock/stock.service.js';
import * as repository from './stock-adjustments.repository.js';
import type { AppliedLine, StockAdjustment } from './stock-adjustments.repository.js';
import { quantitySource, takesAwayOrCounts } from './stock-adjustments.rules.js';

export type { StockAdjustment };
type Body = Schema<'StockAdjustmentCreate'>;
type LineInput = Body['items'][number];
type StockType = Schema<'StockType'>;

const messages = {
  notFound: (id: number) => `Stock adjustment ${id} was not found.`,
  codeTaken: codeTakenMessage('internal_code'),
  twice: (first: number, stockType: string, code: string, lot: string) =>
    `Line ${first} already adjusts the ${stockType} stock of article ${code}${lot}; give each balance one line.`,
  deactivatedCount: (code: string, onHand: number, counted: number) =>
    `Article ${code} is deactivated; a count may only lower its stock (${onHand} on hand, ${counted} counted).`,
  notApplied: 'The adjustment cannot be applied; nothing was adjusted.',
};

const stockTypeOf = (line: LineInput): StockType => line.stock_type ?? 'STOC_OK';

/** The filters of GET /api/stock/adjustments, as its query names them (GraphQL's `stock_adjustments` takes the same). */
export interface AdjustmentListFilters {
  warehouse_id?: number;
  reason?: Schema<'StockAdjustmentReason'>;
  internal_code?: string;
  updated_since?: string;
}

const repositoryFilters = (filters: AdjustmentListFilters): repository.AdjustmentFilters => ({
  warehouseId: filters.warehouse_id,
  reason: filters.reason,
  internalCode: filters.internal_code,
  updatedSince: inputTime(filters.updated_since),
});

export function listStockAdjustments(ctx: TenantContext, filters: AdjustmentListFilters, page: PageRequest): Promise<Paged<StockAdjustment>> {
  return repository.listAdjustments(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function stockAdjustmentsAfter(ctx: TenantContext, filters: AdjustmentListFilters, options: { after?: number; limit: number }): Promise<StockAdjustment[]> {
  return repository.adjustmentsAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

export async function getStockAdjustment(ctx: TenantContext, id: number): Promise<StockAdjustment> {
  const found = await findStockAdjustment(ctx, id);
  if (!found) throw new NotFoundError(messages.notFound(id));
  return found;
}

/** One adjustment in scope, or undefined (GraphQL's `stock_adjustment`). */
export function findStockAdjustment(ctx: TenantContext, id: number): Promise<StockAdjustment | undefined> {
  return repository.findAdjustment(ctx.db, ctx.scope, id);
}

/** Articles a deactivated article may be adjusted on: all of whose lines take stock away or count it. */
function writeOffArticles(items: readonly LineInput[]): Set<number> {
  const refused = new Set(items.filter((line) => !takesAwayOrCounts(line)).map((line) => line.article_id));
  return new Set(items.map((line) => line.article_id).filter((id) => !refused.has(id)));
}

/** The lot and expiry date of a balance as a message names them ('' for a balance of neither). */
function lotOf(item: LineInput): string {
  const parts = [item.lot !== undefined ? `lot ${item.lot}` : '', item.expiry_date !== undefined ? `expiring ${item.expiry_date}` : ''].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/**
 * Each balance (article, stock type, lot and expiry date) on one line only: a later line of it is
 * a 422 on its article_id.
 */
function checkOneLinePerBalance(items: readonly LineInput[], lines: readonly ResolvedLine[], problems: Problems): void {
  const codes = new Map(lines.map((line) => [line.articleId, line.articleCode]));
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const key = JSON.stringify([item.article_id, stockTypeOf(item), item.lot ?? '', item.expiry_date ?? '']);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else problems.add(`items.${index}.article_id`, messages.twice(first, stockTypeOf(item), codes.get(item.article_id) ?? String(item.article_id), lotOf(item)));
  });
}

interface Applying {
  clientId: number;
  warehouseId: number;
  document: { kind: string; id: number };
  userId: number | null;
}

/** Applies one line; what it did, or undefined when it joined the problems instead. */
async function applyLine(tx: Knex.Transaction, on: Applying, line: ResolvedLine, input: LineInput, problems: Problems): Promise<AppliedLine | undefined> {
  const key: StockKey = {
    clientId: on.clientId,
    warehouseId: on.warehouseId,
    articleId: line.articleId,
    stockType: stockTypeOf(input),
    lot: line.lot,
    expiryDate: line.expiryDate,
    tracked: line.tracked,
  };
  const movement = { cause: 'adjustment' as const, document: on.document, userId: on.userId };
  const applied = { articleId: line.articleId, um3pl: line.um3pl, stockType: key.stockType, lot: line.lot, expiryDate: line.expiryDate };
  if (input.counted_um3pl !== undefined) {
    const counted = await countStock(tx, { ...key, ...movement, counted: line.quantity, onlyLower: !line.active });
    if (counted.ok) return { ...applied, counted: line.quantity, delta: counted.delta, before: counted.before };
    problems.add(`items.${line.index}.article_id`, messages.deactivatedCount(line.articleCode, toQuantity(counted.before), toQuantity(line.quantity)));
    return undefined;
  }
  const field = `items.${line.index}.delta_um3pl`;
  const level = await problems.collect(applyStockChange(tx, { ...key, ...movement, delta: line.quantity, articleCode: line.articleCode, field }));
  if (!level) return undefined;
  // The level shows thousandths / 1000 (exact to 3 decimals), so this gives the stored thousandths back.
  const after = Math.round(level.quantity * 1000);
  return { ...applied, counted: null, delta: line.quantity, before: after - line.quantity };
}

/**
 * Records an adjustment and applies it, all lines or none. A count's balance is read with a lock
 * and set by a conditional update, so a delivery or transfer racing it comes wholly before or
 * wholly after it; a change never takes a balance below zero. Records `stock.changed` for each
 * balance that changed and `stock.adjusted`.
 */
export async function createStockAdjustment(ctx: TenantContext, body: Body): Promise<StockAdjustment> {
  const scope = companyScope(ctx);
  return writeDocument(ctx.db, {
    type: 'stock.adjusted',
    codeField: 'internal_code',
    work: async (tx) => {
      const problems = new Problems();
      const clientId = problems.attempt(() => clientFor(scope, body.client_3pl_id));
      await checkWarehouse({ ...ctx, db: tx }, body.warehouse_id, 'warehouse_id', problems);
      const context = { clientId, clientIds: scope.clientIds, providerId: scope.providerId };
      const lines = await resolveLines(tx, context, body.items, {
        problems,
        kept: writeOffArticles(body.items),
        quantity: (_line, index) => quantitySource(body.items[index]!),
        lots: 'inbound',
      });
      checkOneLinePerBalance(body.items, lines, problems);
      if (body.internal_code && clientId !== undefined && (await codeTaken(tx, 'stock_adjustments', 'internal_code', clientId, body.internal_code))) {
        problems.add('internal_code', messages.codeTaken);
      }
      problems.throwIfAny();
      const header = { company_id: clientId!, warehouse_id: body.warehouse_id, reason: body.reason, note: body.note ?? null, internal_code: body.internal_code ?? null, user_id: userOf(ctx) };
      const id = await repository.insertAdjustment(tx, header);
      const on: Applying = { clientId: header.company_id, warehouseId: header.warehouse_id, document: { kind: 'adjustment', id }, userId: header.user_id };
      const applied: Array<AppliedLine | undefined> = [];
      for (const { line } of inLockOrder(lines, (l) => ({ articleId: l.articleId, stockType: stockTypeOf(body.items[l.index]!) }))) {
        applied[line.index] = await applyLine(tx, on, line, body.items[line.index]!, problems);
      }
      problems.throwIfAny(messages.notApplied);
      await repository.insertItems(tx, id, applied.filter((a): a is AppliedLine => a !== undefined));
      return id;
    },
    reread: async (tx, id) => (await repository.findAdjustment(tx, ctx.scope, id))!,
    companyOf: (adjustment) => adjustment.client_3pl_id,
  });
}
