/**
 * Receptions: goods received against a purchase order. Creating one is one transaction: the
 * reception and its lines, the received quantities of the order's lines (one conditional statement
 * each: never more than ordered), STOC_OK stock in the warehouse, the order's status, and the
 * events. A correction moves stock and the received quantity by the difference.
 */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { InputError, NotFoundError } from '../../platform/errors.js';
import { Problems } from '../../platform/problems.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { EventType } from '../../platform/outbox.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { lineArticles, lineQuantity, type RuleFor } from '../documents/document-lines.js';
import { lineLot, tracksLots, type LineLot } from '../documents/document-lots.js';
import { codeTakenMessage, writeDocument } from '../documents/document-writes.js';
import { lockPurchaseOrder, moveReceived, refreshAfterReceipt, requireOrder, type Order } from '../purchase-orders/purchase-orders.service.js';
import { checkWarehouse } from '../reference/reference.service.js';
import { applyStockChange, inLockOrder } from '../stock/stock.service.js';
import * as repository from './receptions.repository.js';
import type { Reception, ReceptionResource } from './receptions.repository.js';
import type { OverOrder } from './receptions.rules.js';

/** The lines' articles as lineArticles read them (share-locked). */
type LineArticles = Awaited<ReturnType<typeof lineArticles>>['articles'];

export const messages = {
  notFound: (id: number) => `Reception ${id} was not found.`,
  orderNotInScope: 'The purchase_order_id must be a purchase order in scope.',
  notReceivable: (id: number, status: string) => `Purchase order ${id} is ${status}; nothing can be received against it.`,
  notALine: (itemId: number, orderId: number) => `Line ${itemId} is not a line of purchase order ${orderId}.`,
  repeated: (itemId: number) => `Line ${itemId} appears more than once; send it once with the whole quantity.`,
  exceeds: (qty: number, remaining: number, ordered: number) =>
    `Receiving ${qty} would exceed the ${remaining} remaining on this line (${ordered} ordered).`,
  notThisReception: (itemId: number, id: number) => `Line ${itemId} is not a line of reception ${id}.`,
  codeTaken: codeTakenMessage('internal_code'),
  overOrdered: (over: OverOrder) =>
    `Correcting this line to ${toQuantity(over.correction.to)} would receive ${toQuantity(over.wouldReceive)} of the ${toQuantity(over.ordered)} ordered on its purchase-order line ` +
    `(${toQuantity(over.byOtherReceptions)} received by other receptions${over.byOtherLines > 0 ? `, ${toQuantity(over.byOtherLines)} by this reception's other lines of it` : ''}): ` +
    `correct it to at most ${toQuantity(over.atMost)}.`,
};

/** Runs `work` as a document write (documents/document-writes.ts) answering the reception as it now is. */
export function writeReception(
  ctx: TenantContext,
  type: Extract<EventType, 'reception.created' | 'reception.updated'>,
  work: (tx: Knex.Transaction) => Promise<number | { id: number; changed: boolean }>,
): Promise<ReceptionResource> {
  return writeDocument(ctx.db, {
    type,
    codeField: 'internal_code',
    work,
    reread: async (tx, id) => repository.toReception((await repository.findReception(tx, ctx.scope, id))!),
    companyOf: (reception) => reception.client_3pl_id,
  });
}

/** The order in scope that can still receive, or a 422 on purchase_order_id. */
function stillReceivable(order: Order | undefined): Order {
  if (!order) throw InputError.field('purchase_order_id', messages.orderNotInScope);
  if (order.status === 'cancelled' || order.status === 'closed') throw InputError.field('purchase_order_id', messages.notReceivable(order.id, order.status));
  return order;
}

async function receivableOrder(ctx: TenantContext, orderId: number): Promise<Order> {
  return stillReceivable(await requireOrder(ctx.db, ctx.scope, orderId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }));
}

/** The filters of GET /api/receptions, as its query names them (GraphQL's `receptions` takes the same). */
export interface ReceptionListFilters {
  purchase_order_id?: number;
  updated_since?: string;
}

const repositoryFilters = (filters: ReceptionListFilters): repository.ReceptionFilters => ({
  purchase_order_id: filters.purchase_order_id,
  updatedSince: inputTime(filters.updated_since),
});

export function listReceptions(ctx: TenantContext, filters: ReceptionListFilters, page: PageRequest): Promise<Paged<ReceptionResource>> {
  return repository.listReceptions(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function receptionsAfter(ctx: TenantContext, filters: ReceptionListFilters, options: { after?: number; limit: number }): Promise<ReceptionResource[]> {
  return repository.receptionsAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

export async function requireReception(db: Knex, scope: CompanyScope, id: number): Promise<Reception> {
  const reception = await repository.findReception(db, scope, id);
  if (!reception) throw new NotFoundError(messages.notFound(id));
  return reception;
}

/** One reception in scope, or undefined (GraphQL's `reception`). */
export async function findReception(ctx: TenantContext, id: number): Promise<ReceptionResource | undefined> {
  const reception = await repository.findReception(ctx.db, ctx.scope, id);
  return reception ? repository.toReception(reception) : undefined;
}

export async function getReception(ctx: TenantContext, id: number): Promise<ReceptionResource> {
  return repository.toReception(await requireReception(ctx.db, ctx.scope, id));
}

interface ReceivedLine extends LineLot {
  index: number;
  item: Order['items'][number];
  /** Thousandths. */
  quantity: number;
  tracked: boolean;
}

/**
 * The selected lines checked against the order's lines as they now are: each a line of the order,
 * its quantity by the quantity rules and within what remains, its lot and expiry date by its
 * article's flags. A line of the order may be selected more than once only with another lot or
 * expiry date (goods of one ordered line that arrive in several lots); what remains is shared.
 * Every problem joins `problems`; only the lines without one are answered.
 */
function receivedLines(selected: Schema<'ReceptionCreate'>['selected_items'], order: Order, ruleFor: RuleFor, flags: LineArticles, problems: Problems): ReceivedLine[] {
  const seen = new Set<string>();
  const taken = new Map<number, number>();
  const lines: ReceivedLine[] = [];
  selected.forEach((line, i) => {
    const problem = (field: string, message: string) => problems.add(`selected_items.${i}.${field}`, message);
    const item = order.items.find((candidate) => candidate.id === line.po_item_id);
    if (!item) return problem('po_item_id', messages.notALine(line.po_item_id, order.id));
    const key = `${item.id}|${line.lot ?? ''}|${line.expiry_date ?? ''}`;
    if (seen.has(key)) return problem('po_item_id', messages.repeated(item.id));
    seen.add(key);
    const article = flags.get(item.article_id)!;
    const quantity = lineQuantity(line.quantity_um3pl, ruleFor(item.article_id, item.um3pl));
    const lot = lineLot(article, line, 'inbound', problem);
    if (!quantity.ok) return problem('quantity_um3pl', quantity.message);
    const remaining = item.quantity - item.received_quantity - (taken.get(item.id) ?? 0);
    if (quantity.thousandths > remaining) {
      return problem('quantity_um3pl', messages.exceeds(toQuantity(quantity.thousandths), toQuantity(Math.max(remaining, 0)), toQuantity(item.quantity)));
    }
    taken.set(item.id, (taken.get(item.id) ?? 0) + quantity.thousandths);
    if (lot) lines.push({ index: i, item, quantity: quantity.thousandths, tracked: tracksLots(article), ...lot });
  });
  return lines;
}

/**
 * Receives goods: the order is locked first, then its lines are checked as they now are (what
 * remains, the quantity rules read under a share lock of the articles), every problem at once.
 * A line of a deactivated article may still be received: the goods were ordered and have arrived.
 */
export async function createReception(ctx: TenantContext, body: Schema<'ReceptionCreate'>): Promise<ReceptionResource> {
  const scope = companyScope(ctx);
  const found = new Problems();
  const receivable = await found.collect(receivableOrder(ctx, body.purchase_order_id));
  await checkWarehouse(ctx, body.warehouse_id, 'warehouse_id', found);
  // The lines are lines of the order: without it there is nothing to check them against.
  const before = receivable ?? found.fail();
  return writeReception(ctx, 'reception.created', async (tx) => {
    const problems = found.copy();
    await lockPurchaseOrder(tx, before.id);
    const order = (await problems.collect(requireOrder(tx, ctx.scope, before.id).then(stillReceivable))) ?? problems.fail();
    const articleIds = order.items.map((i) => i.article_id);
    const { ruleFor, articles } = await lineArticles(tx, { clientId: order.company_id, providerId: scope.providerId }, articleIds);
    const lines = receivedLines(body.selected_items, order, ruleFor, articles, problems);
    if (body.internal_code && (await codeTaken(tx, 'receptions', 'internal_code', order.company_id, body.internal_code))) problems.add('internal_code', messages.codeTaken);
    problems.throwIfAny();
    const id = await repository.insertReception(
      tx,
      {
        company_id: order.company_id,
        purchase_order_id: order.id,
        warehouse_id: body.warehouse_id,
        internal_code: body.internal_code ?? null,
        notes: body.notes ?? null,
        external_reference: body.external_reference ?? null,
      },
      lines.map((l) => ({ poItemId: l.item.id, articleId: l.item.article_id, um3pl: l.item.um3pl, quantity: l.quantity, lot: l.lot, expiryDate: l.expiryDate })),
    );
    for (const { line: { index, item, quantity, lot, expiryDate, tracked } } of inLockOrder(lines, (l) => ({ articleId: l.item.article_id }))) {
      const field = `selected_items.${index}.quantity_um3pl`;
      // The remainder was checked under the order's lock; the conditional statement still has the last word.
      if (!(await moveReceived(tx, order.id, item.id, quantity))) {
        throw InputError.field(field, `Receiving ${toQuantity(quantity)} would exceed what remains on this line.`);
      }
      await applyStockChange(tx, {
        clientId: order.company_id,
        warehouseId: body.warehouse_id,
        articleId: item.article_id,
        stockType: 'STOC_OK',
        lot,
        expiryDate,
        tracked,
        delta: quantity,
        cause: 'reception',
        document: { kind: 'reception', id },
        userId: userOf(ctx),
        articleCode: item.article_code,
        field,
      });
    }
    await refreshAfterReceipt(tx, scope, order.id);
    return id;
  });
}
