/**
 * The benchmark's volume: a provider with 2 clients, 20,000 articles each, 100,000 stock rows (each
 * with months of movements that add up to it: 1,000,000 in all, seed-ledger.ts), 10,000 sales orders of 2 lines (most delivered;
 * the picked ones reserve their lines and are what the `delivered` scenario moves), purchase
 * orders with room for any number of receptions, 20,000 events of the first client in the events
 * feed, and one operator token per client.
 * Rows go in with batch inserts in one transaction; the database must be freshly migrated.
 */
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { insertToken } from '../../src/components/auth/auth.repository.js';
import { hashPassword } from '../../src/components/auth/passwords.js';
import { generateToken, hashToken } from '../../src/components/auth/tokens.js';
import { nowDb } from '../../src/kernel/time.js';
import { eventId } from '../../src/kernel/ids.js';
import { EVENTS_FEED, stampAll } from '../../src/platform/feeds/sequencer.js';
import { toApiTime } from '../../src/kernel/time.js';
import { LEDGER_SLOTS, ledgerSpan, seedLedger, type BalanceKey } from './seed-ledger.js';

export const VOLUME = {
  clients: 2,
  articlesPerClient: 20_000,
  /** STOC_OK in both warehouses for every article, STOC_DEFECT in the first for half of them. */
  stockRows: 100_000,
  /** Movements of the ledger behind them (LEDGER_SLOTS each). */
  movements: 100_000 * LEDGER_SLOTS,
  salesOrders: 10_000,
  /** Of them, the first client's: all picked but 500 delivered; the `delivered` scenario moves each once. */
  firstClientOrders: 9_000,
  pickedOrders: 8_500,
  purchaseOrders: 20,
  /** Events of the first client in the feed (article.updated, each the article as the API shows it). */
  events: 20_000,
} as const;

/** Whole units, stored in thousandths. */
const UNITS = 1000;
const STOCK_PER_ROW = 1_000 * UNITS;
const PO_LINE_QUANTITY = 100_000_000 * UNITS;
const CHUNK = 500;

export interface BenchWorld {
  /** The client every scenario reads and writes. */
  companyId: number;
  token: string;
  warehouseIds: [number, number];
  articleCount: number;
  /** The sync cursor whose page is the last one (per_page 500). */
  lastSyncCursor: number;
  /** Purchase orders of the company with their two line ids. */
  purchaseOrders: Array<{ id: number; lines: [number, number] }>;
  /** Picked sales orders of the company, in id order. */
  pickedOrderIds: number[];
  /** The `after` whose events page (per_page 500) is the feed's last one. */
  lastEventsAfter: string;
  /** The `after` whose stock movements page (per_page 500) is the company's last one. */
  lastMovementsAfter: number;
  /** An instant in the middle of the ledger's months, as the API writes times. */
  asOfAt: string;
}

async function insertMany(tx: Knex.Transaction, table: string, rows: object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await tx(table).insert(rows.slice(i, i + CHUNK));
}

async function seedClient(
  tx: Knex.Transaction,
  clientId: number,
  tag: string,
  warehouses: [number, number],
  picked: number,
  orders: number,
): Promise<{ articleIds: number[]; customerId: number; keys: BalanceKey[] }> {
  const now = nowDb();
  const stamps = { created_at: now, updated_at: now };
  await insertMany(
    tx,
    'articles',
    Array.from({ length: VOLUME.articlesPerClient }, (_, i) => ({
      company_id: clientId,
      article_code: `${tag}-${String(i).padStart(6, '0')}`,
      name: `Article ${i} of ${tag}`,
      description: `Bench article ${i}, ${i % 7 === 0 ? 'chilled' : 'ambient'}, carton of ${(i % 12) + 1}`,
      um3pl: 'BUC',
      integer_only_um3pl_quantity: true,
      barcode: i % 3 === 0 ? null : String(5_940_000_000_000 + i),
      active: i % 50 !== 0,
      ...stamps,
    })),
  );
  const articleIds = (await tx('articles').where('company_id', clientId).orderBy('id').pluck('id')).map(Number);

  const keys = articleIds.flatMap((articleId, i) => [
    { warehouse_id: warehouses[0], article_id: articleId, stock_type: 'STOC_OK' },
    { warehouse_id: warehouses[1], article_id: articleId, stock_type: 'STOC_OK' },
    ...(i % 2 === 0 ? [{ warehouse_id: warehouses[0], article_id: articleId, stock_type: 'STOC_DEFECT' }] : []),
  ]);
  await insertMany(tx, 'stock_balances', keys.map((key) => ({ company_id: clientId, ...key, quantity: STOCK_PER_ROW, updated_at: now })));

  const supplierId = await build.insertPartner(tx, { company_id: clientId, type: 'supplier', name: `Supplier of ${tag}` });
  const customerId = await build.insertPartner(tx, { company_id: clientId, type: 'client', name: `Customer of ${tag}` });
  await insertMany(
    tx,
    'purchase_orders',
    Array.from({ length: VOLUME.purchaseOrders }, (_, i) => ({ company_id: clientId, partner_id: supplierId, internal_code: `PO-${tag}-${i}`, status: 'open', ...stamps })),
  );
  const poIds = (await tx('purchase_orders').where('company_id', clientId).orderBy('id').pluck('id')).map(Number);
  await insertMany(
    tx,
    'purchase_order_items',
    poIds.flatMap((poId, i) =>
      [0, 1].map((line) => ({ purchase_order_id: poId, article_id: articleIds[(i * 2 + line) % articleIds.length], um3pl: 'BUC', quantity: PO_LINE_QUANTITY, received_quantity: 0 })),
    ),
  );

  await insertMany(
    tx,
    'sales_orders',
    Array.from({ length: orders }, (_, i) => ({
      company_id: clientId,
      partner_id: customerId,
      source_warehouse_id: warehouses[0],
      stock_type: 'STOC_OK',
      internal_code: `SO-${tag}-${i}`,
      status: i < picked ? 'picked' : 'delivered',
      ...stamps,
    })),
  );
  const orderRows = await tx('sales_orders').where('company_id', clientId).orderBy('id').select('id', 'status');
  const lineArticle = (order: number, line: number): number => articleIds[(order * 2 + line) % articleIds.length]!;
  await insertMany(
    tx,
    'sales_order_items',
    orderRows.flatMap((order, i) => [0, 1].map((line) => ({ sales_order_id: order.id, article_id: lineArticle(i, line), um3pl: 'BUC', quantity: UNITS }))),
  );
  const path = ['new', 'picking', 'picked', 'delivered'];
  await insertMany(
    tx,
    'sales_order_status_history',
    orderRows.flatMap((order) => path.slice(0, path.indexOf(order.status as string) + 1).map((status) => ({ sales_order_id: order.id, status, user_id: null, at: now }))),
  );
  // Picked orders reserve their lines (each article appears in at most a few of them).
  const reserved = new Map<number, number>();
  orderRows.forEach((order, i) => {
    if (order.status !== 'picked') return;
    for (const line of [0, 1]) reserved.set(lineArticle(i, line), (reserved.get(lineArticle(i, line)) ?? 0) + UNITS);
  });
  for (const [articleId, quantity] of reserved) {
    await tx('stock_balances').where({ company_id: clientId, warehouse_id: warehouses[0], article_id: articleId, stock_type: 'STOC_OK' }).update({ reserved: quantity });
  }
  return { articleIds, customerId, keys: keys.map((key) => ({ company_id: clientId, ...key })) };
}

export async function seedBenchVolume(db: Knex): Promise<BenchWorld> {
  return db.transaction(async (tx) => {
    const provider = await build.insertCompany(tx, { name: 'Bench Logistics', type: 'provider' });
    const clients = [];
    for (let i = 0; i < VOLUME.clients; i++) clients.push(await build.insertCompany(tx, { name: `Bench Client ${i + 1}`, type: 'client', provider_id: provider }));
    for (const company of [provider, ...clients]) await build.setModules(tx, company);
    const warehouses: [number, number] = [
      await build.insertWarehouse(tx, { company_id: provider, code: 'WH-1', name: 'Bench North' }),
      await build.insertWarehouse(tx, { company_id: provider, code: 'WH-2', name: 'Bench South' }),
    ];
    await build.insertUnit(tx, { company_id: provider, code: 'BUC', name: 'Piece', integer_only: true });

    const others = (VOLUME.salesOrders - VOLUME.firstClientOrders) / (VOLUME.clients - 1);
    const seeded = [];
    for (const [i, clientId] of clients.entries()) {
      const [picked, orders] = i === 0 ? [VOLUME.pickedOrders, VOLUME.firstClientOrders] : [others / 5, others];
      seeded.push(await seedClient(tx, clientId, `C${i + 1}`, warehouses, picked, orders));
    }

    await seedLedger(tx, seeded.flatMap((client) => client.keys), STOCK_PER_ROW);

    const companyId = clients[0]!;
    const passwordHash = await hashPassword('bench-password');
    const userId = await build.insertUser(tx, { name: 'Bench Operator', email: 'bench.operator@bench.test', password_hash: passwordHash, primary_company_id: companyId });
    await build.addMembership(tx, userId, companyId, 'operator');
    const token = generateToken();
    await insertToken(tx, userId, 'bench', hashToken(token));

    const articleIds = seeded[0]!.articleIds;
    const poIds = (await tx('purchase_orders').where('company_id', companyId).orderBy('id').pluck('id')).map(Number);
    const purchaseOrders = [];
    for (const id of poIds) {
      const lines = (await tx('purchase_order_items').where('purchase_order_id', id).orderBy('id').pluck('id')).map(Number);
      purchaseOrders.push({ id, lines: [lines[0]!, lines[1]!] as [number, number] });
    }
    const pickedOrderIds = (await tx('sales_orders').where({ company_id: companyId, status: 'picked' }).orderBy('id').pluck('id')).map(Number);
    const articles = await tx('articles').where('company_id', companyId).orderBy('id').limit(VOLUME.events);
    const occurred = nowDb();
    await insertMany(
      tx,
      'outbox_events',
      Array.from({ length: VOLUME.events }, (_, i) => {
        const a = articles[i % articles.length]!;
        const data = { id: a.id, client_3pl_id: companyId, article_code: a.article_code, name: a.name, description: a.description, um3pl: a.um3pl, integer_only_um3pl_quantity: true, um3pl_barcode: a.barcode, barcode: a.barcode, active: Boolean(a.active), created_at: occurred, updated_at: occurred };
        return { event_id: eventId(), company_id: companyId, type: 'article.updated', data: JSON.stringify(data), occurred_at: occurred, dispatched_at: occurred };
      }),
    );
    await stampAll(tx, EVENTS_FEED);
    const lastEventsAfter = (await tx('outbox_events').where('company_id', companyId).orderBy('feed_seq', 'desc').offset(500).limit(1).pluck('event_id'))[0] as string;
    const lastMovementsAfter = Number((await tx('stock_movements').where('company_id', companyId).orderBy('feed_seq', 'desc').offset(500).limit(1).pluck('id'))[0]);
    const { startMs, slotMs } = ledgerSpan();
    return {
      companyId,
      token,
      warehouseIds: warehouses,
      articleCount: articleIds.length,
      lastSyncCursor: articleIds[articleIds.length - 501]!,
      purchaseOrders,
      pickedOrderIds,
      lastEventsAfter,
      lastMovementsAfter,
      asOfAt: toApiTime(new Date(startMs + (LEDGER_SLOTS / 2) * slotMs + slotMs / 3)),
    };
  });
}
