/**
 * Inbound test data and probes: KG articles, purchase orders and receptions made through the API,
 * stock balances and movements read from the database, and a snapshot of everything an inbound
 * write may touch for one client (to prove a refused write changed nothing).
 */
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import type { Schema } from '../../src/platform/openapi/schemas.js';
import type { Api } from './api.js';
import { unique, type World } from './factories.js';

export type PurchaseOrder = Schema<'PurchaseOrder'>;
export type Reception = Schema<'Reception'>;

export interface LineInput {
  article_id: number;
  um3pl: string;
  quantity_um3pl: number | string;
}

export interface TestArticle {
  id: number;
  code: string;
}

/** An article of `clientId` counted in KG (a decimal unit); `integerOnly` sets integer_only_um3pl_quantity. */
export async function kgArticle(db: Knex, clientId: number, integerOnly = false): Promise<TestArticle> {
  const code = unique('KG-');
  const id = await build.insertArticle(db, { company_id: clientId, article_code: code, description: `Bulk ${code}`, um3pl: 'KG', integer_only_um3pl_quantity: integerOnly });
  return { id, code };
}

/** Creates a purchase order through the API (201 expected) and answers it. */
export async function createOrder(agent: Api, partnerId: number, items: LineInput[], extra: Record<string, unknown> = {}): Promise<PurchaseOrder> {
  const res = await agent.post('/api/purchase-orders').send({ partner_id: partnerId, internal_code: unique('PO-'), items, ...extra }).expect(201);
  return res.body.data as PurchaseOrder;
}

/** A fresh article (BUC) of the world's client, written to `db`, and an open purchase order of 10 of it. */
export async function orderOfTen(world: World, db: Knex, codePrefix: string): Promise<{ articleId: number; orderId: number; itemId: number }> {
  const articleId = await build.insertArticle(db, { company_id: world.client.id, article_code: unique(codePrefix), description: 'Fragile jar', um3pl: 'BUC' });
  const order = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: articleId, um3pl: 'BUC', quantity_um3pl: 10 }]);
  return { articleId, orderId: order.id, itemId: order.items[0]!.id };
}

/** Receives `[po_item_id, quantity]` pairs of an order into a warehouse through the API (201 expected). */
export async function receive(
  agent: Api,
  orderId: number,
  warehouseId: number,
  selected: Array<[number, number | string]>,
  extra: Record<string, unknown> = {},
): Promise<Reception> {
  const res = await agent
    .post('/api/receptions')
    .send({ purchase_order_id: orderId, warehouse_id: warehouseId, selected_items: selected.map(([po_item_id, quantity_um3pl]) => ({ po_item_id, quantity_um3pl })), ...extra })
    .expect(201);
  return res.body.data as Reception;
}

/** A STOC_OK (or other) balance on hand in thousandths as stored; 0 when there is no balance row. */
export async function balance(db: Knex, key: { clientId: number; warehouseId: number; articleId: number }, stockType = 'STOC_OK'): Promise<number> {
  const row = await db('stock_balances').where({ company_id: key.clientId, warehouse_id: key.warehouseId, article_id: key.articleId, stock_type: stockType }).first();
  return row ? Number(row.quantity) : 0;
}

export interface Movement {
  company_id: number;
  warehouse_id: number;
  article_id: number;
  stock_type: string;
  delta: number;
  cause: string;
  document_kind: string;
  document_id: number;
  user_id: number | null;
}

/** The movements of one document, oldest first, with their deltas as numbers (thousandths). */
export async function movementsOf(db: Knex, documentKind: string, documentId: number): Promise<Movement[]> {
  const rows: Array<Record<string, unknown>> = await db('stock_movements').where({ document_kind: documentKind, document_id: documentId }).orderBy('id');
  return rows.map((r) => ({
    company_id: Number(r.company_id),
    warehouse_id: Number(r.warehouse_id),
    article_id: Number(r.article_id),
    stock_type: String(r.stock_type),
    delta: Number(r.delta),
    cause: String(r.cause),
    document_kind: String(r.document_kind),
    document_id: Number(r.document_id),
    user_id: r.user_id === null ? null : Number(r.user_id),
  }));
}

/** The lines of an order as stored: [ordered, received] in thousandths, by line id. */
export async function storedLines(db: Knex, orderId: number): Promise<Array<{ id: number; article_id: number; um3pl: string; quantity: number; received_quantity: number }>> {
  const rows: Array<Record<string, unknown>> = await db('purchase_order_items').where('purchase_order_id', orderId).orderBy('id');
  return rows.map((r) => ({ id: Number(r.id), article_id: Number(r.article_id), um3pl: String(r.um3pl), quantity: Number(r.quantity), received_quantity: Number(r.received_quantity) }));
}

/** The data of the events of `type` recorded for `companyId` whose data has this `id`. */
export async function eventsFor(db: Knex, companyId: number, type: string, id?: number): Promise<unknown[]> {
  const rows: Array<{ data: string }> = await db('outbox_events').where({ company_id: companyId, type }).orderBy('id');
  return rows.map((r) => JSON.parse(r.data) as { id: number }).filter((d) => id === undefined || d.id === id);
}

/**
 * Takes stock away as a warehouse adjustment would (balance and a compensating movement, so the
 * ledger still agrees): the way a test makes less stock on hand than a reception brought.
 */
export async function adjustDown(db: Knex, key: { clientId: number; warehouseId: number; articleId: number }, thousandths: number): Promise<void> {
  const where = { company_id: key.clientId, warehouse_id: key.warehouseId, article_id: key.articleId, stock_type: 'STOC_OK' };
  await db.transaction(async (tx) => {
    const changed = await tx('stock_balances').where(where).where('quantity', '>=', thousandths).update({ quantity: tx.raw('?? - ?', ['quantity', thousandths]) });
    if (changed !== 1) throw new Error('adjustDown: not enough stock to take away');
    await tx('stock_movements').insert({ ...where, delta: -thousandths, cause: 'adjustment', document_kind: 'adjustment', document_id: 0, user_id: null, created_at: '2026-01-01 00:00:00.000000' });
  });
}

/** Everything an inbound write may touch for one client, to compare before and after a refused write. */
export async function inboundState(db: Knex, clientId: number): Promise<Record<string, unknown>> {
  const orderIds = db('purchase_orders').select('id').where('company_id', clientId);
  const receptionIds = db('receptions').select('id').where('company_id', clientId);
  return {
    orders: await db('purchase_orders').where('company_id', clientId).orderBy('id'),
    lines: await db('purchase_order_items').whereIn('purchase_order_id', orderIds).orderBy('id'),
    receptions: await db('receptions').where('company_id', clientId).orderBy('id'),
    receptionLines: await db('reception_items').whereIn('reception_id', receptionIds).orderBy('id'),
    balances: await db('stock_balances').where('company_id', clientId).orderBy('id'),
    movements: await db('stock_movements').where('company_id', clientId).orderBy('id'),
    events: (await db('outbox_events').where('company_id', clientId).orderBy('id').select('event_id')).map((e: { event_id: string }) => e.event_id),
  };
}
