/**
 * Shipments: what left the warehouse for a sales order, with its carrier and tracking. A shipment
 * takes the lines and quantities it names, or everything the order has left; it is one
 * transaction with the order locked first (shipments of one order queue up), its lines checked as
 * they then are, every problem at once (shipments.ship.ts does the shipping).
 */
import type { Knex } from 'knex';
import type { PageRequest } from '../../kernel/paging.js';
import { toQuantity } from '../../kernel/quantity.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { NotFoundError } from '../../platform/errors.js';
import { inputTime } from '../../platform/input-time.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { recordEvent } from '../../platform/outbox.js';
import { Problems } from '../../platform/problems.js';
import { companyScope, type TenantContext } from '../../platform/tenant-context.js';
import { lineQuantity, quantityRules } from '../documents/document-lines.js';
import { codeTakenMessage, withKeysAsFieldErrors } from '../documents/document-writes.js';
import * as orders from './sales-orders.repository.js';
import type { SalesOrder } from './sales-orders.repository.js';
import { leftToShip, shippingRefusal } from './sales-orders.rules.js';
import { lockedOrder } from './sales-orders.service.js';
import * as repository from './shipments.repository.js';
import type { ShipmentResource } from './shipments.repository.js';
import { shippedAtProblem, trackingUrlProblem } from './shipments.rules.js';
import { everythingLeft, shipLines, type LineToShip } from './shipments.ship.js';

export type { ShipmentResource };

export const messages = {
  notFound: (id: number) => `Shipment ${id} was not found.`,
  notALine: (itemId: number, orderId: number) => `Line ${itemId} is not a line of sales order ${orderId}.`,
  repeated: (itemId: number) => `Line ${itemId} appears more than once; send it once with the whole quantity.`,
  exceeds: (quantity: number, left: number, ordered: number, shipped: number) =>
    `Shipping ${quantity} would exceed the ${left} left to ship on this line (${ordered} ordered, ${shipped} shipped).`,
  nothingLeft: 'Nothing is left to ship on this order.',
  codeTaken: codeTakenMessage('internal_code'),
  short: 'Not enough stock for the shipment; nothing was shipped.',
};

/** The filters of GET /api/shipments, as its query names them (GraphQL's `shipments` takes the same). */
export interface ShipmentListFilters {
  sales_order_id?: number;
  tracking_number?: string;
  updated_since?: string;
}

const repositoryFilters = (filters: ShipmentListFilters): repository.ShipmentFilters => ({
  salesOrderId: filters.sales_order_id,
  trackingNumber: filters.tracking_number,
  updatedSince: inputTime(filters.updated_since),
});

export function listShipments(ctx: TenantContext, filters: ShipmentListFilters, page: PageRequest): Promise<Paged<ShipmentResource>> {
  return repository.listShipments(ctx.db, ctx.scope, repositoryFilters(filters), page);
}

export function shipmentsAfter(ctx: TenantContext, filters: ShipmentListFilters, options: { after?: number; limit: number }): Promise<ShipmentResource[]> {
  return repository.shipmentsAfter(ctx.db, ctx.scope, repositoryFilters(filters), options);
}

export async function getShipment(ctx: TenantContext, id: number): Promise<ShipmentResource> {
  const found = await repository.findShipment(ctx.db, ctx.scope, id);
  if (!found) throw new NotFoundError(messages.notFound(id));
  return found;
}

/** The shipment, or undefined when it is not in scope. */
export function findShipment(ctx: TenantContext, id: number): Promise<ShipmentResource | undefined> {
  return repository.findShipment(ctx.db, ctx.scope, id);
}

type ShipmentCreate = Schema<'ShipmentCreate'>;

/** The lines `items` names, checked against the order as it is under its lock (each problem joins `problems`). */
async function requestedLines(tx: Knex, ctx: TenantContext, order: SalesOrder, items: NonNullable<ShipmentCreate['items']>, problems: Problems): Promise<LineToShip[]> {
  const ruleFor = await quantityRules(tx, { clientId: order.company_id, providerId: companyScope(ctx).providerId }, order.items.map((i) => i.article_id));
  const seen = new Set<number>();
  const lines: LineToShip[] = [];
  items.forEach((requested, index) => {
    const problem = (field: string, message: string) => problems.add(`items.${index}.${field}`, message);
    const item = order.items.find((candidate) => candidate.id === requested.so_item_id);
    if (!item) return problem('so_item_id', messages.notALine(requested.so_item_id, order.id));
    if (seen.has(item.id)) return problem('so_item_id', messages.repeated(item.id));
    seen.add(item.id);
    const quantity = lineQuantity(requested.quantity_um3pl, ruleFor(item.article_id, item.um3pl));
    if (!quantity.ok) return problem('quantity_um3pl', quantity.message);
    if (quantity.thousandths > leftToShip(item)) {
      return problem('quantity_um3pl', messages.exceeds(toQuantity(quantity.thousandths), toQuantity(leftToShip(item)), toQuantity(item.quantity), toQuantity(item.delivered_quantity)));
    }
    lines.push({ item, quantity: quantity.thousandths, field: `items.${index}.quantity_um3pl`, index });
  });
  return lines;
}

/** The shipment's own fields, checked (each problem joins `problems`). */
function shipmentFields(body: ShipmentCreate, problems: Problems): { shipped_at?: string } {
  const trackingUrl = body.tracking_url === undefined ? undefined : trackingUrlProblem(body.tracking_url);
  if (trackingUrl) problems.add('tracking_url', trackingUrl);
  const shippedAt = problems.attempt(() => inputTime(body.shipped_at, 'shipped_at'));
  const tooEarlyOrLate = shippedAt === undefined ? undefined : shippedAtProblem(shippedAt, Date.now());
  if (tooEarlyOrLate) problems.add('shipped_at', tooEarlyOrLate);
  return { shipped_at: shippedAt };
}

/**
 * POST /api/sales-orders/{id}/shipments: ships what `body.items` names, or everything the order
 * has left, and answers the shipment (see the module's comment).
 */
export async function createShipment(ctx: TenantContext, orderId: number, body: ShipmentCreate): Promise<ShipmentResource> {
  return withKeysAsFieldErrors({ codeField: 'internal_code' }, () =>
    inTransaction(ctx.db, async (tx) => {
      const order = await lockedOrder(tx, ctx.scope, orderId);
      const problems = new Problems();
      const fields = shipmentFields(body, problems);
      const refusal = shippingRefusal(order);
      if (refusal) problems.add(refusal.field, refusal.message);
      let lines: LineToShip[] = [];
      if (refusal?.field !== 'status') {
        lines = body.items ? await requestedLines(tx, ctx, order, body.items, problems) : everythingLeft(order, 'items');
        if (!body.items && lines.length === 0) problems.add('items', messages.nothingLeft);
      }
      if (body.internal_code !== undefined && (await codeTaken(tx, 'shipments', 'internal_code', order.company_id, body.internal_code))) problems.add('internal_code', messages.codeTaken);
      problems.throwIfAny();
      const shipment = {
        carrier: body.carrier ?? null,
        service: body.service ?? null,
        tracking_number: body.tracking_number ?? null,
        tracking_url: body.tracking_url ?? null,
        internal_code: body.internal_code ?? null,
        ...fields,
      };
      const linesName = body.items ? "the shipment's lines" : "the order's lines";
      const { shipmentId, moved } = await shipLines(tx, ctx, order, lines, shipment, { cause: 'shipment', shortMessage: messages.short, linesName });
      const after = orders.toSalesOrder((await orders.findOrder(tx, ctx.scope, orderId))!);
      await recordEvent(tx, { companyId: order.company_id, type: moved ? 'sales_order.status_changed' : 'sales_order.updated', data: after });
      return (await repository.findShipment(tx, ctx.scope, shipmentId))!;
    }),
  );
}
