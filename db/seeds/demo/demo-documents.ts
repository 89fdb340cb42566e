/**
 * Demo documents, made through the services as a client would make them (so the stock ledger and
 * the events are what production would write): a purchase order per client, received in part
 * (Acme Foods) and in full (Globex Retail), a new sales order of Acme Foods that reserves stock, and
 * one of Acme Foods shipped in part, with its carrier and tracking (partially_delivered).
 */
import type { Knex } from 'knex';
import { resolveAccess } from '../../../src/components/auth/access.service.js';
import { createPurchaseOrder } from '../../../src/components/purchase-orders/purchase-orders.service.js';
import { createReception } from '../../../src/components/receptions/receptions.service.js';
import { createSalesOrder } from '../../../src/components/sales-orders/sales-orders.service.js';
import { changeSalesOrderStatus } from '../../../src/components/sales-orders/sales-orders.status.js';
import { createShipment } from '../../../src/components/sales-orders/shipments.service.js';
import type { Principal } from '../../../src/kernel/identity.js';
import type { TenantContext } from '../../../src/platform/tenant-context.js';

async function idOf(db: Knex, table: string, where: Record<string, unknown>): Promise<number> {
  const row = await db(table).select('id').where(where).first();
  if (!row) throw new Error(`Demo data: no ${table} row where ${JSON.stringify(where)}`);
  return Number(row.id);
}

async function contextFor(db: Knex, email: string, company: string): Promise<TenantContext> {
  const user = await db('users').where('email', email).first();
  const principal: Principal = {
    kind: 'user',
    tokenId: 0,
    user: { id: user.id, name: user.name, email: user.email, isSuperAdmin: Boolean(user.is_super_admin), primaryCompanyId: user.primary_company_id },
  };
  const access = await resolveAccess(db, principal, await idOf(db, 'companies', { name: company }));
  return { db, principal, scope: access.scope, role: access.role };
}

/** A day `days` after the seeding day (UTC), `YYYY-MM-DD`. */
function dayAfterToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

async function receiveOrder(
  ctx: TenantContext,
  order: {
    supplier: string;
    code: string;
    warehouse: string;
    lines: Array<[code: string, unit: string, ordered: number, received: number]>;
    /** Per line, the lot and expiry date received (articles that track them). */
    lots?: Array<{ lot: string; expiry_date: string }>;
  },
): Promise<void> {
  const { db } = ctx;
  const items = [];
  for (const [code, unit, ordered] of order.lines) {
    items.push({ article_id: await idOf(db, 'articles', { article_code: code }), um3pl: unit, quantity_um3pl: ordered });
  }
  const created = await createPurchaseOrder(ctx, {
    partner_id: await idOf(db, 'partners', { code: order.supplier }),
    internal_code: order.code,
    items,
  });
  await createReception(ctx, {
    purchase_order_id: created.id,
    warehouse_id: await idOf(db, 'warehouses', { code: order.warehouse }),
    internal_code: `REC-${order.code}`,
    selected_items: created.items.map((item, i) => ({ po_item_id: item.id, quantity_um3pl: order.lines[i]![3], ...order.lots?.[i] })),
  });
}

export async function seedDemoDocuments(db: Knex): Promise<void> {
  const acme = await contextFor(db, 'acme.operator@demo.test', 'Acme Foods');
  await receiveOrder(acme, {
    supplier: 'SUP-ACME-01',
    code: 'PO-ACME-0001',
    warehouse: 'WH-BUC',
    lines: [
      ['ACME-TOM-400', 'BUC', 240, 120],
      ['ACME-CHS-KG', 'KG', 25.5, 25.5],
    ],
  });
  // A new sales order reserves 20 of the 120 tomato-paste jars on hand.
  await createSalesOrder(acme, {
    partner_id: await idOf(db, 'partners', { code: 'CLI-ACME-01' }),
    source_warehouse_id: await idOf(db, 'warehouses', { code: 'WH-BUC' }),
    internal_code: 'SO-ACME-0001',
    items: [{ article_id: await idOf(db, 'articles', { article_code: 'ACME-TOM-400' }), um3pl: 'BUC', quantity_um3pl: 20 }],
  });
  // 10 KG of cheese ordered, 4 KG shipped by DHL: the order is partially delivered and reserves the other 6.
  const cheese = await createSalesOrder(acme, {
    partner_id: await idOf(db, 'partners', { code: 'CLI-ACME-01' }),
    source_warehouse_id: await idOf(db, 'warehouses', { code: 'WH-BUC' }),
    internal_code: 'SO-ACME-0002',
    items: [{ article_id: await idOf(db, 'articles', { article_code: 'ACME-CHS-KG' }), um3pl: 'KG', quantity_um3pl: 10 }],
  });
  await changeSalesOrderStatus(acme, cheese.id, 'picking');
  await createShipment(acme, cheese.id, {
    carrier: 'DHL',
    service: 'Express 12:00',
    tracking_number: 'JD014600006281230704',
    tracking_url: 'https://www.dhl.com/track?id=JD014600006281230704',
    internal_code: 'DN-ACME-0001',
    items: [{ so_item_id: cheese.items[0]!.id, quantity_um3pl: 4 }],
  });
  // Yogurt in two lots; an order of 60 takes the 48 of the lot expiring first and 12 of the next (FEFO).
  await receiveOrder(acme, {
    supplier: 'SUP-ACME-01',
    code: 'PO-ACME-0002',
    warehouse: 'WH-BUC',
    lines: [
      ['ACME-YOG-125', 'BUC', 48, 48],
      ['ACME-YOG-125', 'BUC', 96, 96],
    ],
    lots: [
      { lot: 'YOG-A1', expiry_date: dayAfterToday(12) },
      { lot: 'YOG-B2', expiry_date: dayAfterToday(26) },
    ],
  });
  await createSalesOrder(acme, {
    partner_id: await idOf(db, 'partners', { code: 'CLI-ACME-01' }),
    source_warehouse_id: await idOf(db, 'warehouses', { code: 'WH-BUC' }),
    internal_code: 'SO-ACME-0003',
    items: [{ article_id: await idOf(db, 'articles', { article_code: 'ACME-YOG-125' }), um3pl: 'BUC', quantity_um3pl: 60 }],
  });
  await receiveOrder(await contextFor(db, 'globex.admin@demo.test', 'Globex Retail'), {
    supplier: 'SUP-GLX-01',
    code: 'PO-GLX-0001',
    warehouse: 'WH-CLJ',
    lines: [['GLX-BOLT-M8', 'BUC', 500, 500]],
  });
}
