/**
 * Returns: goods a client partner sends back into a warehouse. A return raises stock per line
 * (STOC_OK unless the line says otherwise, so damaged goods go to STOC_DEFECT) in one transaction
 * with its movements and events, on the lot and expiry date the line names for an article that
 * tracks them. Against a delivered sales order, each article may come back at most as much as the
 * order delivered less what earlier returns took back.
 */
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { inputTime } from '../../platform/input-time.js';
import { clientInScope } from '../../kernel/company-scope.js';
import { NotFoundError } from '../../platform/errors.js';
import { Problems } from '../../platform/problems.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { resolveLines, type ResolvedLine } from '../documents/document-lines.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { checkWarehouse } from '../reference/reference.service.js';
import { clientPartner, lockReturnableOrder, messages as salesOrderMessages } from '../sales-orders/sales-orders.service.js';
import { applyStockChange, inLockOrder } from '../stock/stock.service.js';
import * as repository from './returns.repository.js';
import type { ReturnResource } from './returns.repository.js';

const messages = {
  notFound: (id: number) => `Return ${id} was not found.`,
  codeTaken: codeTakenMessage('internal_code'),
  notDelivered: (articleId: number, orderId: number) => `Article ${articleId} was not delivered by sales order ${orderId}.`,
  tooMuch: (left: number, delivered: number) => `At most ${left} of this article can still be returned (${delivered} delivered).`,
  lotNotShipped: (lot: string, orderId: number) => `Lot ${lot} of this article did not ship on sales order ${orderId}; name a lot its shipments took.`,
  tooMuchOfLot: (lot: string, left: number, delivered: number) => `At most ${left} of lot ${lot} can still be returned (${delivered} of it delivered).`,
  expiryNotShipped: (what: string, orderId: number, shipped: readonly string[]) =>
    `${what} shipped on sales order ${orderId} with the expiry date ${shipped.join(' or ')}; give the expiry date it left with.`,
};

/** The filters of GET /api/returns, as its query names them (GraphQL's `returns` takes the same). */
export interface ReturnListFilters {
  sales_order_id?: number;
  updated_since?: string;
}

const repositoryFilters = (filters: ReturnListFilters): repository.ReturnFilters => ({ salesOrderId: filters.sales_order_id, updatedSince: inputTime(filters.updated_since) });

export function listReturns(ctx: TenantContext, filters: ReturnListFilters, page: PageRequest): Promise<Paged<ReturnResource>> {
  return repository.listReturns(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function returnsAfter(ctx: TenantContext, filters: ReturnListFilters, options: { after?: number; limit: number }): Promise<ReturnResource[]> {
  return repository.returnsAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

/** One return in scope, or undefined (GraphQL's `return`). */
export function findReturn(ctx: TenantContext, id: number): Promise<ReturnResource | undefined> {
  return repository.findReturn(ctx.db, ctx.scope, id);
}

export async function getReturn(ctx: TenantContext, id: number): Promise<ReturnResource> {
  const found = await findReturn(ctx, id);
  if (!found) throw new NotFoundError(messages.notFound(id));
  return found;
}

interface Delivered {
  /** Per article. */
  byArticle: Map<number, number>;
  /** Per article and lot, `<article id>|<lot>`. */
  byLot: Map<string, number>;
}

/**
 * Goods come back with the expiry date they left with: a returned line of a lot (or of an article
 * that tracks only expiry) names an expiry date its shipments took, so a return cannot give the
 * goods another shelf life (a second row of the lot, taken after fresher goods).
 */
function checkExpiry(line: ResolvedLine, shipped: ReadonlyMap<string, ReadonlySet<string>>, orderId: number, problems: Problems): void {
  if (line.expiryDate === '') return;
  const dates = shipped.get(`${line.articleId}|${line.lot}`);
  if (dates === undefined || dates.has(line.expiryDate)) return;
  const what = line.lot === '' ? `Article ${line.articleCode}` : `Lot ${line.lot} of article ${line.articleCode}`;
  problems.add(`items.${line.index}.expiry_date`, messages.expiryNotShipped(what, orderId, [...dates].sort()));
}

/**
 * Each article may come back at most as much as the order delivered less what earlier returns (and
 * earlier lines) took back; a line with a lot, only of a lot the order's shipments took, and at most
 * what they took of it less what came back of it.
 */
function checkAgainstDelivery(lines: readonly ResolvedLine[], delivered: Delivered & { expiries: ReadonlyMap<string, ReadonlySet<string>> }, returned: Delivered, orderId: number, problems: Problems): void {
  for (const line of lines) {
    if (line.lot !== '') checkLot(line, delivered.byLot, returned.byLot, orderId, problems);
    checkExpiry(line, delivered.expiries, orderId, problems);
  }
  checkArticles(lines, delivered.byArticle, returned.byArticle, orderId, problems);
}

function checkLot(line: ResolvedLine, delivered: Map<string, number>, returned: Map<string, number>, orderId: number, problems: Problems): void {
  const key = `${line.articleId}|${line.lot}`;
  const got = delivered.get(key);
  if (got === undefined) return problems.add(`items.${line.index}.lot`, messages.lotNotShipped(line.lot, orderId));
  const before = returned.get(key) ?? 0;
  returned.set(key, before + line.quantity);
  if (before + line.quantity > got) problems.add(`items.${line.index}.quantity_um3pl`, messages.tooMuchOfLot(line.lot, toQuantity(Math.max(got - before, 0)), toQuantity(got)));
}

function checkArticles(lines: readonly ResolvedLine[], delivered: Map<number, number>, returned: Map<number, number>, orderId: number, problems: Problems): void {
  for (const line of lines) {
    const got = delivered.get(line.articleId);
    if (got === undefined) {
      problems.add(`items.${line.index}.article_id`, messages.notDelivered(line.articleId, orderId));
      continue;
    }
    const before = returned.get(line.articleId) ?? 0;
    returned.set(line.articleId, before + line.quantity);
    if (before + line.quantity > got) problems.add(`items.${line.index}.quantity_um3pl`, messages.tooMuch(toQuantity(Math.max(got - before, 0)), toQuantity(got)));
  }
}

/**
 * Registers a return. Against a sales order, the order is locked first (returns against it queue
 * up; on MySQL/MariaDB a plain read before the lock would fix an older snapshot); then the partner,
 * warehouse, lines, what the order delivered and the code are checked, every problem at once.
 */
export async function createReturn(ctx: TenantContext, body: Schema<'ReturnCreate'>): Promise<ReturnResource> {
  const scope = companyScope(ctx);
  return writeDocument(ctx.db, {
    type: 'return.created',
    codeField: 'internal_code',
    reread: async (tx, id) => (await repository.findReturn(tx, ctx.scope, id))!,
    companyOf: (created) => created.client_3pl_id,
    work: async (tx) => {
      const problems = new Problems();
      const using = { ...ctx, db: tx };
      const orderId = body.sales_order_id ?? undefined;
      const order = orderId === undefined ? undefined : await problems.collect(lockReturnableOrder(tx, ctx.scope, orderId));
      const partner = await problems.collect(clientPartner(using, body.partner_id));
      if (order && partner && order.clientId !== partner.client_3pl_id) problems.add('sales_order_id', salesOrderMessages.notReturnable);
      await checkWarehouse(using, body.warehouse_id, 'warehouse_id', problems);
      const clientId = partner?.client_3pl_id ?? clientInScope(scope);
      const lines = await resolveLines(tx, { clientId, clientIds: scope.clientIds, providerId: scope.providerId }, body.items, { problems, lots: 'inbound' });
      if (order && orderId !== undefined && !problems.has('sales_order_id')) {
        const returned = { byArticle: await repository.returnedByArticle(tx, orderId), byLot: await repository.returnedByLot(tx, orderId) };
        checkAgainstDelivery(lines, { byArticle: order.delivered, byLot: order.deliveredLots, expiries: order.shippedExpiries }, returned, orderId, problems);
      }
      if (body.internal_code && clientId !== undefined && (await codeTaken(tx, 'returns', 'internal_code', clientId, body.internal_code))) problems.add('internal_code', messages.codeTaken);
      problems.throwIfAny();
      const client = partner!.client_3pl_id;
      const stocked = lines.map((line) => ({ ...line, stockType: body.items[line.index]!.stock_type ?? 'STOC_OK' }));
      const id = await repository.insertReturn(
        tx,
        {
          company_id: client,
          partner_id: partner!.id,
          warehouse_id: body.warehouse_id,
          sales_order_id: orderId ?? null,
          internal_code: body.internal_code ?? null,
          reason: body.reason ?? null,
        },
        stocked,
      );
      for (const { line } of inLockOrder(stocked, (l) => ({ articleId: l.articleId, stockType: l.stockType }))) {
        await applyStockChange(tx, {
          clientId: client,
          warehouseId: body.warehouse_id,
          articleId: line.articleId,
          stockType: line.stockType,
          lot: line.lot,
          expiryDate: line.expiryDate,
          tracked: line.tracked,
          delta: line.quantity,
          cause: 'return',
          document: { kind: 'return', id },
          userId: userOf(ctx),
          articleCode: line.articleCode,
          field: `items.${line.index}.quantity_um3pl`,
        });
      }
      return id;
    },
  });
}
