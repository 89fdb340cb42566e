/**
 * Stock transfers: stock of one client moved between stock types, between the provider's
 * warehouses, or both. Each line takes its quantity off one balance and puts it on another (two
 * movements); the transfer is checked whole, then applied in one transaction, all lines or none.
 * A line of an article that tracks lots or expiry dates names the lot and expiry date that move;
 * the stock keeps them at its destination.
 *
 * A transfer takes only what is available at its source: on hand less what open sales orders
 * reserve there. Reserved goods are promised to orders that will pick them where they are; moving
 * them away would leave those orders short at delivery, so the operator changes or cancels the
 * order first (goods found damaged are taken off with an adjustment, which records what is there).
 */
import type { PageRequest } from '../../kernel/paging.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { NotFoundError } from '../../platform/errors.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { Problems } from '../../platform/problems.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { clientFor } from '../articles/articles.service.js';
import { resolveLines } from '../documents/document-lines.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { checkWarehouse } from '../reference/reference.service.js';
import { moveStock, type StockMove } from '../stock/stock.service.js';
import * as repository from './stock-transfers.repository.js';
import type { StockTransfer, TransferLine } from './stock-transfers.repository.js';

export type { StockTransfer };
type Body = Schema<'StockTransferCreate'>;

const messages = {
  notFound: (id: number) => `Stock transfer ${id} was not found.`,
  codeTaken: codeTakenMessage('internal_code'),
  notWarehouse: 'The warehouse_id must be a warehouse of the provider.',
  samePlace: 'The to place must differ from the from place: another warehouse, another stock type, or both.',
  notApplied: 'The transfer cannot be made; nothing was moved.',
};

/** The filters of GET /api/stock/transfers, as its query names them (GraphQL's `stock_transfers` takes the same). */
export interface TransferListFilters {
  warehouse_id?: number;
  internal_code?: string;
  updated_since?: string;
}

const repositoryFilters = (filters: TransferListFilters): repository.TransferFilters => ({
  warehouseId: filters.warehouse_id,
  internalCode: filters.internal_code,
  updatedSince: inputTime(filters.updated_since),
});

export function listStockTransfers(ctx: TenantContext, filters: TransferListFilters, page: PageRequest): Promise<Paged<StockTransfer>> {
  return repository.listTransfers(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function stockTransfersAfter(ctx: TenantContext, filters: TransferListFilters, options: { after?: number; limit: number }): Promise<StockTransfer[]> {
  return repository.transfersAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

/** One transfer in scope, or undefined (GraphQL's `stock_transfer`). */
export function findStockTransfer(ctx: TenantContext, id: number): Promise<StockTransfer | undefined> {
  return repository.findTransfer(ctx.db, ctx.scope, id);
}

export async function getStockTransfer(ctx: TenantContext, id: number): Promise<StockTransfer> {
  const found = await repository.findTransfer(ctx.db, ctx.scope, id);
  if (!found) throw new NotFoundError(messages.notFound(id));
  return found;
}

/** Every warehouse a line names must be the provider's (each problem on the field that named it); a line must move somewhere else. */
async function checkPlaces(ctx: TenantContext, items: Body['items'], problems: Problems): Promise<void> {
  const known = new Map<number, boolean>();
  for (const [index, line] of items.entries()) {
    for (const side of ['from', 'to'] as const) {
      const id = line[side].warehouse_id;
      const field = `items.${index}.${side}.warehouse_id`;
      if (!known.has(id)) {
        const found = new Problems();
        await checkWarehouse(ctx, id, field, found);
        known.set(id, !found.any);
      }
      if (!known.get(id)) problems.add(field, messages.notWarehouse);
    }
    if (line.from.warehouse_id === line.to.warehouse_id && line.from.stock_type === line.to.stock_type) problems.add(`items.${index}.to`, messages.samePlace);
  }
}

/**
 * Records a transfer and moves its stock. Records `stock.changed` (cause `transfer`) for each
 * balance whose quantity changed, and `stock.transferred`.
 */
export async function createStockTransfer(ctx: TenantContext, body: Body): Promise<StockTransfer> {
  const scope = companyScope(ctx);
  return writeDocument(ctx.db, {
    type: 'stock.transferred',
    codeField: 'internal_code',
    work: async (tx) => {
      const problems = new Problems();
      const clientId = problems.attempt(() => clientFor(scope, body.client_3pl_id));
      await checkPlaces({ ...ctx, db: tx }, body.items, problems);
      const lines = await resolveLines(tx, { clientId, clientIds: scope.clientIds, providerId: scope.providerId }, body.items, { problems, lots: 'inbound' });
      if (body.internal_code && clientId !== undefined && (await codeTaken(tx, 'stock_transfers', 'internal_code', clientId, body.internal_code))) {
        problems.add('internal_code', messages.codeTaken);
      }
      problems.throwIfAny();
      const client = clientId!;
      const stored: TransferLine[] = lines.map((line) => {
        const { from, to } = body.items[line.index]!;
        return {
          articleId: line.articleId,
          um3pl: line.um3pl,
          quantity: line.quantity,
          from: { warehouseId: from.warehouse_id, stockType: from.stock_type },
          to: { warehouseId: to.warehouse_id, stockType: to.stock_type },
          lot: line.lot,
          expiryDate: line.expiryDate,
        };
      });
      const userId = userOf(ctx);
      const id = await repository.insertTransfer(tx, { company_id: client, note: body.note ?? null, internal_code: body.internal_code ?? null, user_id: userId }, stored);
      const moves: StockMove[] = lines.flatMap((line, i) => {
        const { from, to } = stored[i]!;
        const field = `items.${line.index}.quantity_um3pl`;
        // The stock keeps its lot and expiry date where it goes.
        const common = { clientId: client, articleId: line.articleId, articleCode: line.articleCode, lot: line.lot, expiryDate: line.expiryDate, tracked: line.tracked, field };
        return [
          { ...common, ...from, delta: -line.quantity },
          { ...common, ...to, delta: line.quantity },
        ];
      });
      // Each line is a pair of moves, from its source (2i) to its destination (2i + 1).
      const pairs = lines.map((_, i) => [2 * i, 2 * i + 1] as const);
      for (const problem of await moveStock(tx, moves, { cause: 'transfer', document: { kind: 'transfer', id }, userId }, pairs)) problems.add(problem.field, problem.message);
      problems.throwIfAny(messages.notApplied);
      return id;
    },
    reread: async (tx, id) => (await repository.findTransfer(tx, ctx.scope, id))!,
    companyOf: (transfer) => transfer.client_3pl_id,
  });
}
