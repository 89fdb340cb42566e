/**
 * The benchmark's volume: a provider with 2 clients, 20,000 articles each, 122,000 stock rows (each
 * with months of movements that add up to it: 1,220,000 in all, seed-ledger.ts), 26,400 sales
 * orders of 2 lines (most picked: they reserve their lines and are what the two `delivered`
 * scenarios and the shipment scenario move), purchase orders with room for any number of
 * receptions, 20,000 events of the first client in the events feed, and one operator token per client.
 * Lots and expiry: 1,000 of the first client's articles (every 20th) track both, with 20 lots in the
 * first warehouse (STOC_OK: each lot its own expiry date, all in the future, earliest the smallest)
 * and 4 in the second; 8,200 picked orders of them (lines without a pinned lot) reserve what
 * `stock_reservations` holds, and their rows' `reserved` is the FEFO allocation of it (`allocate`),
 * as the stock service leaves them. The other orders' lines are of articles without lots: 8,500
 * picked ones for the plain delivery and, on the articles after theirs (wrapping round, so an
 * article may be on two orders and reserve both), 8,200 picked ones for the shipment scenario.
 * The adjustment scenario moves the second warehouse's STOC_OK balance of 1,000 active articles
 * without lots (nothing reserves it) by +1 and -1 in turn, so it never runs out.
 * Rows go in with batch inserts in one transaction; the database must be freshly migrated.
 */
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { insertToken } from '../../src/components/auth/auth.repository.js';
import { hashPassword } from '../../src/components/auth/passwords.js';
import { generateToken, hashToken } from '../../src/components/auth/tokens.js';
import { allocate } from '../../src/components/stock/stock.fefo.js';
import { nowDb } from '../../src/kernel/time.js';
import { eventId } from '../../src/kernel/ids.js';
import { EVENTS_FEED, stampAll } from '../../src/platform/feeds/sequencer.js';
import { toApiTime } from '../../src/kernel/time.js';
import { LEDGER_SLOTS, ledgerSpan, seedLedger, type SeededBalance } from './seed-ledger.js';

/** Lots of a tracked article in the first warehouse (STOC_OK, where its orders ship from) and in the second. */
const LOTS_FIRST_WAREHOUSE = 20;
const LOTS_SECOND_WAREHOUSE = 4;
/** Every TRACKED_EVERY-th article of the first client tracks lots and expiry (odd indexes: active, no STOC_DEFECT row). */
const TRACKED_EVERY = 20;
const TRACKED_OFFSET = 1;

export const VOLUME = {
  clients: 2,
  articlesPerClient: 20_000,
  /** Of the first client's articles, those that track lots and expiry dates. */
  trackedArticles: 20_000 / TRACKED_EVERY,
  lotsPerArticle: LOTS_FIRST_WAREHOUSE,
  /**
   * STOC_OK in both warehouses for every article, STOC_DEFECT in the first for the even ones; a
   * tracked article has a row per lot instead (20 in the first warehouse, 4 in the second).
   */
  stockRows: 2 * 50_000 + (20_000 / TRACKED_EVERY) * (LOTS_FIRST_WAREHOUSE + LOTS_SECOND_WAREHOUSE - 2),
  /** Movements of the ledger behind them (LEDGER_SLOTS each). */
  movements: (2 * 50_000 + (20_000 / TRACKED_EVERY) * (LOTS_FIRST_WAREHOUSE + LOTS_SECOND_WAREHOUSE - 2)) * LEDGER_SLOTS,
  salesOrders: 26_400,
  /** Of them, the first client's: all picked but 500 delivered; the `delivered` and shipment scenarios move each once. */
  firstClientOrders: 25_400,
  /** Picked orders of articles without lots (the `delivered` scenario). */
  pickedOrders: 8_500,
  /** Picked orders of tracked articles (the FEFO `delivered` scenario), 3 units a line. */
  fefoOrders: 8_200,
  /** Picked orders of articles without lots (the shipment scenario ships each whole once). */
  shipmentOrders: 8_200,
  /** Active articles without lots whose second-warehouse STOC_OK balance the adjustment scenario moves. */
  adjustedArticles: 1_000,
  purchaseOrders: 20,
  /** Events of the first client in the feed (article.updated, each the article as the API shows it). */
  events: 20_000,
} as const;

/** Whole units, stored in thousandths. */
const UNITS = 1000;
const STOCK_PER_ROW = 1_000 * UNITS;
/** Lot j of a tracked article in the first warehouse holds (j + 1) × 10 units; each in the second, 250. */
const lotQuantity = (j: number): number => (j + 1) * 10 * UNITS;
const SECOND_WAREHOUSE_LOT = 250 * UNITS;
const FEFO_LINE_QUANTITY = 3 * UNITS;
const DAY_MS = 86_400_000;
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
  /** Picked sales orders of the company whose lines are of articles without lots, in id order. */
  pickedOrderIds: number[];
  /** Picked sales orders of the company whose lines are of articles with 20 lots, in id order. */
  fefoOrderIds: number[];
  /** Picked sales orders of the company (articles without lots) for the shipment scenario, with their two line ids. */
  shipmentOrders: Array<{ id: number; lines: [number, number] }>;
  /** Active articles of the company without lots, whose second-warehouse STOC_OK balance nothing reserves (the adjustment scenario). */
  adjustedArticleIds: number[];
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

/** 'YYYY-MM-DD' of `days` days from now (UTC). */
const dayFromNow = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

interface OrderSpec {
  status: 'picked' | 'delivered';
  lines: Array<{ articleId: number; quantity: number }>;
}

async function seedClient(
  tx: Knex.Transaction,
  clientId: number,
  tag: string,
  warehouses: [number, number],
  orderCounts: { picked: number; delivered: number; fefo: number; shipments: number },
  tracks: (index: number) => boolean,
): Promise<{ articleIds: number[]; customerId: number; balances: SeededBalance[] }> {
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
      lot_tracked: tracks(i),
      expiry_tracked: tracks(i),
      ...stamps,
    })),
  );
  const articleIds = (await tx('articles').where('company_id', clientId).orderBy('id').pluck('id')).map(Number);
  const plain = articleIds.filter((_, i) => !tracks(i));
  const tracked = articleIds.filter((_, i) => tracks(i));

  // Orders: picked and delivered ones of articles without lots, then picked ones of tracked articles,
  // then the shipment scenario's picked ones of articles without lots, on the articles after the
  // first ones' (consecutive orders on different articles, so concurrent deliveries do not wait on each other).
  const firstPlainOrders = orderCounts.picked + orderCounts.delivered;
  /** `count` orders of 2 lines of 1 unit, on the articles without lots from the `from`-th on. */
  const plainOrders = (count: number, from: number, status: (i: number) => OrderSpec['status']) =>
    Array.from({ length: count }, (_, i): OrderSpec => ({
      status: status(i),
      lines: [0, 1].map((line) => ({ articleId: plain[(from + i * 2 + line) % plain.length]!, quantity: UNITS })),
    }));
  const orders: OrderSpec[] = [
    ...plainOrders(firstPlainOrders, 0, (i) => (i < orderCounts.picked ? 'picked' : 'delivered')),
    ...Array.from({ length: orderCounts.fefo }, (_, i): OrderSpec => ({
      status: 'picked',
      lines: [0, 1].map((line) => ({ articleId: tracked[(i * 2 + line) % tracked.length]!, quantity: FEFO_LINE_QUANTITY })),
    })),
    ...plainOrders(orderCounts.shipments, firstPlainOrders * 2, () => 'picked'),
  ];
  // What the picked orders reserve, per article (a plain article is on at most two lines, of different orders).
  const demand = new Map<number, number>();
  for (const order of orders) {
    if (order.status !== 'picked') continue;
    for (const line of order.lines) demand.set(line.articleId, (demand.get(line.articleId) ?? 0) + line.quantity);
  }

  // Balances, in article order: one row per key of an article without lots; a row per lot of a
  // tracked one, its `reserved` the FEFO allocation of its orders' demand (all in the first warehouse, STOC_OK).
  const today = dayFromNow(0);
  const balances: Array<SeededBalance & { reserved: number }> = [];
  for (const [i, articleId] of articleIds.entries()) {
    const key = (warehouse: number, stockType: string, lot = '', expiry = '') => ({ company_id: clientId, warehouse_id: warehouse, article_id: articleId, stock_type: stockType, lot, expiry_date: expiry });
    if (!tracks(i)) {
      balances.push({ ...key(warehouses[0], 'STOC_OK'), quantity: STOCK_PER_ROW, reserved: demand.get(articleId) ?? 0 });
      balances.push({ ...key(warehouses[1], 'STOC_OK'), quantity: STOCK_PER_ROW, reserved: 0 });
      if (i % 2 === 0) balances.push({ ...key(warehouses[0], 'STOC_DEFECT'), quantity: STOCK_PER_ROW, reserved: 0 });
      continue;
    }
    const lots = Array.from({ length: LOTS_FIRST_WAREHOUSE }, (_, j) => ({ lot: `L${String(i).padStart(5, '0')}-${String(j).padStart(2, '0')}`, expiry: dayFromNow(45 + 21 * j) }));
    const rows = lots.map(({ lot, expiry }, j) => ({ id: j, lot, expiryDate: expiry, quantity: lotQuantity(j) }));
    const allocation = allocate(rows, [{ lot: '', quantity: demand.get(articleId) ?? 0 }], today);
    if (allocation.unallocated > 0) throw new Error(`the lots of article ${articleId} cannot hold its orders`);
    for (const row of rows) balances.push({ ...key(warehouses[0], 'STOC_OK', row.lot, row.expiryDate), quantity: row.quantity, reserved: allocation.reserved.get(row.id) ?? 0 });
    for (const { lot, expiry } of lots.slice(0, LOTS_SECOND_WAREHOUSE)) balances.push({ ...key(warehouses[1], 'STOC_OK', lot, expiry), quantity: SECOND_WAREHOUSE_LOT, reserved: 0 });
  }
  await insertMany(tx, 'stock_balances', balances.map((b) => ({ ...b, updated_at: now })));
  await insertMany(
    tx,
    'stock_reservations',
    tracked.filter((articleId) => demand.has(articleId)).map((articleId) => ({ company_id: clientId, warehouse_id: warehouses[0], article_id: articleId, stock_type: 'STOC_OK', lot: '', quantity: demand.get(articleId) })),
  );

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
    poIds.flatMap((poId, i) => [0, 1].map((line) => ({ purchase_order_id: poId, article_id: plain[(i * 2 + line) % plain.length], um3pl: 'BUC', quantity: PO_LINE_QUANTITY, received_quantity: 0 }))),
  );

  await insertMany(
    tx,
    'sales_orders',
    orders.map((order, i) => ({
      company_id: clientId,
      partner_id: customerId,
      source_warehouse_id: warehouses[0],
      stock_type: 'STOC_OK',
      internal_code: `SO-${tag}-${i}`,
      status: order.status,
      ...stamps,
    })),
  );
  const orderIds = (await tx('sales_orders').where('company_id', clientId).orderBy('id').pluck('id')).map(Number);
  await insertMany(
    tx,
    'sales_order_items',
    orders.flatMap((order, i) => order.lines.map((line) => ({ sales_order_id: orderIds[i], article_id: line.articleId, um3pl: 'BUC', quantity: line.quantity }))),
  );
  const path = ['new', 'picking', 'picked', 'delivered'];
  await insertMany(
    tx,
    'sales_order_status_history',
    orders.flatMap((order, i) => path.slice(0, path.indexOf(order.status) + 1).map((status) => ({ sales_order_id: orderIds[i], status, user_id: null, at: now }))),
  );
  return { articleIds, customerId, balances: balances.map(({ reserved: _, ...balance }) => balance) };
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
      const first = i === 0;
      const counts = first
        ? {
            picked: VOLUME.pickedOrders,
            delivered: VOLUME.firstClientOrders - VOLUME.pickedOrders - VOLUME.fefoOrders - VOLUME.shipmentOrders,
            fefo: VOLUME.fefoOrders,
            shipments: VOLUME.shipmentOrders,
          }
        : { picked: others / 5, delivered: others - others / 5, fefo: 0, shipments: 0 };
      seeded.push(await seedClient(tx, clientId, `C${i + 1}`, warehouses, counts, (index) => first && index % TRACKED_EVERY === TRACKED_OFFSET));
    }
    const balances = seeded.flatMap((client) => client.balances);
    if (balances.length !== VOLUME.stockRows) throw new Error(`seeded ${balances.length} stock rows, VOLUME says ${VOLUME.stockRows}`);
    await seedLedger(tx, balances);

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
    const picked = (await tx('sales_orders').where({ company_id: companyId, status: 'picked' }).orderBy('id').pluck('id')).map(Number);
    const pickedOrderIds = picked.slice(0, VOLUME.pickedOrders);
    const fefoOrderIds = picked.slice(VOLUME.pickedOrders, VOLUME.pickedOrders + VOLUME.fefoOrders);
    const shipmentOrderIds = picked.slice(VOLUME.pickedOrders + VOLUME.fefoOrders);
    if (shipmentOrderIds.length !== VOLUME.shipmentOrders) throw new Error(`seeded ${shipmentOrderIds.length} shipment orders, VOLUME says ${VOLUME.shipmentOrders}`);
    // The shipment orders are the first client's last: their lines are those of the ids between the first and the last.
    const shipmentLines = new Map(shipmentOrderIds.map((id) => [id, [] as number[]]));
    const lineRows = await tx('sales_order_items').whereBetween('sales_order_id', [shipmentOrderIds[0]!, shipmentOrderIds[shipmentOrderIds.length - 1]!]).orderBy('id').select('id', 'sales_order_id');
    for (const row of lineRows) shipmentLines.get(Number(row.sales_order_id))!.push(Number(row.id));
    const shipmentOrders = shipmentOrderIds.map((id) => ({ id, lines: shipmentLines.get(id) as [number, number] }));
    const adjustedArticleIds = (
      await tx('articles').where({ company_id: companyId, active: true, lot_tracked: false, expiry_tracked: false }).orderBy('id').limit(VOLUME.adjustedArticles).pluck('id')
    ).map(Number);
    const articles = await tx('articles').where('company_id', companyId).orderBy('id').limit(VOLUME.events);
    const occurred = nowDb();
    await insertMany(
      tx,
      'outbox_events',
      Array.from({ length: VOLUME.events }, (_, i) => {
        const a = articles[i % articles.length]!;
        const data = { id: a.id, client_3pl_id: companyId, article_code: a.article_code, name: a.name, description: a.description, um3pl: a.um3pl, integer_only_um3pl_quantity: true, lot_tracked: Boolean(a.lot_tracked), expiry_tracked: Boolean(a.expiry_tracked), um3pl_barcode: a.barcode, barcode: a.barcode, active: Boolean(a.active), created_at: occurred, updated_at: occurred };
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
      fefoOrderIds,
      shipmentOrders,
      adjustedArticleIds,
      lastEventsAfter,
      lastMovementsAfter,
      asOfAt: toApiTime(new Date(startMs + (LEDGER_SLOTS / 2) * slotMs + slotMs / 3)),
    };
  });
}
