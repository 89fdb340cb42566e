/**
 * PUT /api/receptions/{id}: header fields, and corrections of line quantities. A correction moves
 * the order line's received quantity and the stock of the line's own lot and expiry date by the
 * difference (movement cause `reception_correction`), all in one transaction; the corrections are
 * refused when together they would receive more than an order line ordered, or take stock below
 * zero (judged on the result, not in the order the lines were sent: receptions.rules.ts), or when the
 * article's unit or tracking changed since the line was received (staleLine). A change
 * records `reception.updated` with the reception as it then is (after `stock.changed` and
 * `purchase_order.updated` of a correction).
 */
import { changedFields } from '../../kernel/changes.js';
import { Problems } from '../../platform/problems.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { companyScope, type TenantContext, userOf } from '../../platform/tenant-context.js';
import { lineArticles, lineQuantity } from '../documents/document-lines.js';
import { codeTaken } from '../../platform/db/queries.js';
import { lockPurchaseOrder, moveReceived, refreshAfterReceipt, requireOrder, type Order } from '../purchase-orders/purchase-orders.service.js';
import { tracksLots } from '../documents/document-lots.js';
import { applyStockChange, inLockOrder } from '../stock/stock.service.js';
import * as repository from './receptions.repository.js';
import type { ReceptionItemRow, ReceptionResource, ReceptionRow } from './receptions.repository.js';
import { messages, requireReception, writeReception } from './receptions.service.js';
import { type Correction, overOrders, raisesFirst, receivedChanges, staleLine } from './receptions.rules.js';

/**
 * The purchase order is locked first (receptions and corrections of one order queue up), then the
 * reception and its lines are read as they now are and every change checked: the code, each line,
 * and what each correction would do to the order's line and the stock, every problem at once (the
 * corrections that pass are made in the transaction, which a problem rolls back).
 */
export async function updateReception(ctx: TenantContext, id: number, body: Schema<'ReceptionUpdate'>): Promise<ReceptionResource> {
  const scope = companyScope(ctx);
  const before = await requireReception(ctx.db, ctx.scope, id);
  return writeReception(ctx, 'reception.updated', async (tx) => {
    await lockPurchaseOrder(tx, before.purchase_order_id);
    const reception = (await repository.findReception(tx, scope, id))!;
    const problems = new Problems();
    const changes: Partial<ReceptionRow> = {};
    if (body.internal_code !== undefined) changes.internal_code = body.internal_code;
    if (body.notes !== undefined) changes.notes = body.notes;
    if (body.external_reference !== undefined) changes.external_reference = body.external_reference;
    if (changes.internal_code && (await codeTaken(tx, 'receptions', 'internal_code', reception.company_id, changes.internal_code, id))) problems.add('internal_code', messages.codeTaken);
    const articleIds = reception.items.map((i) => i.article_id);
    const { ruleFor, articles } = await lineArticles(tx, { clientId: reception.company_id, providerId: scope.providerId }, articleIds);
    const corrections: Array<Correction & { item: ReceptionItemRow }> = [];
    const seen = new Set<number>();
    (body.items ?? []).forEach((line, i) => {
      const item = reception.items.find((candidate) => candidate.id === line.id);
      if (!item) return problems.add(`items.${i}.id`, messages.notThisReception(line.id, id));
      if (seen.has(item.id)) return problems.add(`items.${i}.id`, messages.repeated(item.id));
      seen.add(item.id);
      const quantity = lineQuantity(line.quantity_um3pl, ruleFor(item.article_id, item.um3pl));
      if (!quantity.ok) return problems.add(`items.${i}.quantity_um3pl`, quantity.message);
      const left = quantity.thousandths === item.quantity ? undefined : staleLine({ line: item, article: articles.get(item.article_id)! });
      if (left) return problems.add(`items.${i}.quantity_um3pl`, left);
      corrections.push({ index: i, item, poItemId: item.po_item_id, from: item.quantity, to: quantity.thousandths });
    });
    // Each order line's limit is judged on the request's result: one conditional move per line.
    let order: Order | undefined;
    for (const change of receivedChanges(corrections)) {
      if (await moveReceived(tx, reception.purchase_order_id, change.poItemId, change.delta)) continue;
      // A lowering never fails: the line received at least what this reception's lines hold.
      if (change.raised.length === 0) throw new Error(`Order line ${change.poItemId} received less than reception ${id} holds of it`);
      // What the refusal names, read under the order's lock like the reception (every writer of received quantities takes it): the move above still decides.
      order ??= await requireOrder(tx, ctx.scope, reception.purchase_order_id);
      const orderLine = order.items.find((i) => i.id === change.poItemId)!;
      const held = reception.items.filter((i) => i.po_item_id === change.poItemId).reduce((sum, i) => sum + i.quantity, 0);
      for (const over of overOrders(change, orderLine, held)) problems.add(`items.${over.correction.index}.quantity_um3pl`, messages.overOrdered(over));
    }
    let moved = false;
    for (const { line: { index, item, from, to } } of inLockOrder(raisesFirst(corrections), (c) => ({ articleId: c.item.article_id }))) {
      const delta = to - from;
      if (delta === 0) continue;
      moved = true;
      const field = `items.${index}.quantity_um3pl`;
      await applyStockChange(tx, {
        clientId: reception.company_id,
        warehouseId: reception.warehouse_id,
        articleId: item.article_id,
        stockType: 'STOC_OK',
        // The line's own lot and expiry date: a correction changes the balance the line raised.
        lot: item.lot ?? '',
        expiryDate: item.expiry_date ?? '',
        tracked: tracksLots(articles.get(item.article_id)!),
        delta,
        cause: 'reception_correction',
        document: { kind: 'reception', id },
        userId: userOf(ctx),
        articleCode: item.article_code,
        field,
      }).catch((error: unknown) => problems.absorb(error));
      await repository.setItemQuantity(tx, item.id, to);
    }
    problems.throwIfAny();
    if (moved) await refreshAfterReceipt(tx, scope, reception.purchase_order_id);
    const header = changedFields(reception, changes);
    if (Object.keys(header).length === 0 && !moved) return { id, changed: false };
    await repository.updateReception(tx, id, header);
    return { id, changed: true };
  });
}
