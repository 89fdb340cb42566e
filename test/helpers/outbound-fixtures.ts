/**
 * Outbound test data and probes: fresh articles, stock raised the only way a client can (a purchase
 * order and a reception through the API), sales orders made and moved through the API, stock rows
 * as GET /api/stock shows them, and a snapshot of everything a sales-order write may touch for one
 * client (to prove a refused write changed nothing).
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import type { Schema } from '../../src/platform/openapi/schemas.js';
import type { Actor, World } from './factories.js';
import { unique } from './factories.js';

export type SalesOrder = Schema<'SalesOrder'>;
export type StockLevel = Schema<'StockLevel'>;

export interface Line {
  article_id: number;
  um3pl: string;
  quantity_um3pl: number | string;
}

export interface Article {
  id: number;
  code: string;
}

/** A fresh article of `clientId` (its stock is the caller's alone), BUC unless told. */
export async function freshArticle(db: Knex, clientId: number, um3pl = 'BUC', prefix = 'SO-ART-'): Promise<Article> {
  const code = unique(prefix);
  const id = await build.insertArticle(db, { company_id: clientId, article_code: code, description: `Outbound ${code}`, um3pl });
  return { id, code };
}

/** Raises STOC_OK stock of the world's client through a purchase order and a reception (201s expected). */
export async function receiveStock(world: World, article: Article, quantity: number, warehouseId = world.warehouses[0]!, um3pl = 'BUC'): Promise<void> {
  const agent = world.as('operator');
  const po = await agent
    .post('/api/purchase-orders')
    .send({ partner_id: world.partners.supplier, internal_code: unique('PO-'), items: [{ article_id: article.id, um3pl, quantity_um3pl: quantity }] })
    .expect(201);
  await agent
    .post('/api/receptions')
    .send({ purchase_order_id: po.body.data.id, warehouse_id: warehouseId, selected_items: [{ po_item_id: po.body.data.items[0].id, quantity_um3pl: quantity }] })
    .expect(201);
}

/** The body of a sales order of the world's client to its customer, from the first warehouse. */
export function orderBody(world: World, items: Line[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], internal_code: unique('SO-'), items, ...extra };
}

/** One BUC line. */
export function buc(article: Article, quantity: number | string): Line {
  return { article_id: article.id, um3pl: 'BUC', quantity_um3pl: quantity };
}

/** Creates a sales order through the API (201 expected) and answers it. */
export async function createSalesOrder(world: World, items: Line[], extra: Record<string, unknown> = {}, actor: Actor = 'operator'): Promise<SalesOrder> {
  const res = await world.as(actor).post('/api/sales-orders').send(orderBody(world, items, extra)).expect(201);
  return res.body.data as SalesOrder;
}

/** Moves an order through `statuses` in turn (200 each) and answers it as the last move left it (as it is, when there is none). */
export async function moveThrough(world: World, id: number, statuses: string[], actor: Actor = 'operator'): Promise<SalesOrder> {
  let order: SalesOrder | undefined;
  if (statuses.length === 0) order = (await world.as(actor).get(`/api/sales-orders/${id}`).expect(200)).body.data as SalesOrder;
  for (const status of statuses) {
    const res = await world.as(actor).post(`/api/sales-orders/${id}/status`).send({ status }).expect(200);
    expect(res.body.data.status).to.equal(status);
    order = res.body.data as SalesOrder;
  }
  return order!;
}

/** The moves that take a new order to `status` (`delivered` needs the stock to be there). */
export function pathTo(status: string): string[] {
  const paths: Record<string, string[]> = {
    new: [],
    picking: ['picking'],
    picked: ['picking', 'picked'],
    delivered: ['picking', 'picked', 'delivered'],
    cancelled: ['cancelled'],
  };
  return paths[status]!;
}

/** The GET /api/stock row of an article in a warehouse and stock type, or undefined when there is none. */
export async function stockRow(world: World, articleId: number, warehouseId = world.warehouses[0]!, stockType = 'STOC_OK'): Promise<StockLevel | undefined> {
  const res = await world.as('viewer').get(`/api/stock?article_id=${articleId}&warehouse_id=${warehouseId}&stock_type=${stockType}`).expect(200);
  expect(res.body.data.length).to.be.at.most(1);
  return res.body.data[0] as StockLevel | undefined;
}

/** quantity, reserved, available and backordered of a stock row (all 0 when there is no row). */
export async function levels(world: World, articleId: number, warehouseId = world.warehouses[0]!, stockType = 'STOC_OK') {
  const row = await stockRow(world, articleId, warehouseId, stockType);
  return row
    ? { quantity: row.quantity, reserved: row.reserved, available: row.available, backordered: row.backordered }
    : { quantity: 0, reserved: 0, available: 0, backordered: 0 };
}

/** The data of the events of `type` recorded for `companyId`, optionally only those whose data has this `id`. */
export async function eventsOf(db: Knex, companyId: number, type: string, id?: number): Promise<Array<Record<string, unknown>>> {
  const rows: Array<{ data: string }> = await db('outbox_events').where({ company_id: companyId, type }).orderBy('id');
  return rows.map((r) => JSON.parse(r.data) as Record<string, unknown>).filter((d) => id === undefined || d.id === id);
}

/** The movements of one sales order, oldest first, as [article_id, delta in thousandths, stock_type, cause, warehouse_id, user_id]. */
export async function deliveryMovements(db: Knex, orderId: number): Promise<Array<[number, number, string, string, number, number | null]>> {
  const rows: Array<Record<string, unknown>> = await db('stock_movements').where({ document_kind: 'sales_order', document_id: orderId }).orderBy('id');
  return rows.map((r) => [Number(r.article_id), Number(r.delta), String(r.stock_type), String(r.cause), Number(r.warehouse_id), r.user_id === null ? null : Number(r.user_id)]);
}

/** Everything a sales-order write may touch for one client, to compare before and after a refused write. */
export async function outboundState(db: Knex, clientId: number): Promise<Record<string, unknown>> {
  const orderIds = db('sales_orders').select('id').where('company_id', clientId);
  const clean = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : String(v)])));
  return {
    orders: clean(await db('sales_orders').where('company_id', clientId).orderBy('id')),
    lines: clean(await db('sales_order_items').whereIn('sales_order_id', orderIds).orderBy('id')),
    history: clean(await db('sales_order_status_history').whereIn('sales_order_id', orderIds).orderBy('id')),
    balances: clean(await db('stock_balances').where('company_id', clientId).orderBy('id')),
    movements: clean(await db('stock_movements').where('company_id', clientId).orderBy('id')),
    events: (await db('outbox_events').where('company_id', clientId).orderBy('id').select('event_id')).map((e: { event_id: string }) => e.event_id),
  };
}
