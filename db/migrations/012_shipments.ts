/**
 * Shipments and holds of sales orders: each line keeps what its shipments took
 * (`delivered_quantity`, thousandths, never above `quantity`: the shipping statement checks it),
 * an order may be held with a reason, and `shipments` with `shipment_items` record what left, with
 * carrier and tracking (a line's `delivered_quantity` is the sum of its shipment lines).
 *
 * Orders delivered before this migration delivered every line in full: their lines are carried as
 * fully delivered, each order with one shipment of all its lines, shipped when the order was
 * delivered (its `delivered` history entry), without carrier or tracking.
 */
import type { Knex } from 'knex';

function fk(t: Knex.CreateTableBuilder, column: string, table: string): Knex.ReferencingColumnBuilder {
  return t.integer(column).unsigned().references('id').inTable(table);
}

/** One shipment of every line of each delivered order, with its lines, as the service would have made it. */
async function carryDeliveredOrders(knex: Knex): Promise<void> {
  const delivered = knex('sales_orders').select('id').where('status', 'delivered');
  await knex('sales_order_items').whereIn('sales_order_id', delivered).update({ delivered_quantity: knex.ref('quantity') });
  const deliveredAt = knex('sales_order_status_history as h').max('h.at').where('h.sales_order_id', knex.ref('o.id')).where('h.status', 'delivered');
  const shippedAt = knex.raw('COALESCE((?), ??)', [deliveredAt, 'o.updated_at']);
  const orders = knex('sales_orders as o').select('o.company_id', 'o.id', shippedAt, shippedAt, shippedAt).where('o.status', 'delivered').orderBy('o.id');
  await knex.into(knex.raw('?? (??, ??, ??, ??, ??)', ['shipments', 'company_id', 'sales_order_id', 'shipped_at', 'created_at', 'updated_at'])).insert(orders);
  const lines = knex('shipments as s').join('sales_order_items as i', 'i.sales_order_id', 's.sales_order_id').select('s.id', 'i.id', 'i.quantity').orderBy('i.id');
  await knex.into(knex.raw('?? (??, ??, ??)', ['shipment_items', 'shipment_id', 'sales_order_item_id', 'quantity'])).insert(lines);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sales_order_items', (t) => {
    t.bigInteger('delivered_quantity').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('sales_orders', (t) => {
    t.boolean('on_hold').notNullable().defaultTo(false);
    t.string('hold_reason', 500).nullable();
  });
  await knex.schema.createTable('shipments', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'sales_order_id', 'sales_orders').notNullable().index();
    t.string('carrier', 64).nullable();
    t.string('service', 64).nullable();
    t.string('tracking_number', 128).nullable().collate('utf8mb4_bin');
    t.string('tracking_url', 2048).nullable();
    t.string('internal_code', 64).nullable().collate('utf8mb4_bin');
    t.datetime('shipped_at', { precision: 6 }).notNullable();
    t.datetime('created_at', { precision: 6 }).notNullable();
    t.datetime('updated_at', { precision: 6 }).notNullable();
    t.unique(['company_id', 'internal_code']);
    t.index(['company_id', 'id']);
    t.index(['company_id', 'updated_at']);
    t.index(['company_id', 'tracking_number']);
  });
  await knex.schema.createTable('shipment_items', (t) => {
    t.increments('id');
    fk(t, 'shipment_id', 'shipments').notNullable().index();
    fk(t, 'sales_order_item_id', 'sales_order_items').notNullable().index();
    t.bigInteger('quantity').notNullable();
  });
  await carryDeliveredOrders(knex);
}

/**
 * Rolling back forgets shipments, holds and delivered quantities. An order that is partially
 * delivered or closed cannot be told apart from one that was not shipped in the model before, so
 * the rollback refuses while any exists (finish or correct those orders first) rather than leave a
 * reservation or a delivery the older code would read wrongly.
 */
export async function down(knex: Knex): Promise<void> {
  const row = (await knex('sales_orders').whereIn('status', ['partially_delivered', 'closed']).count({ n: '*' }).first()) as { n: number | string };
  if (Number(row.n) > 0) {
    throw new Error(`012_shipments cannot be rolled back: ${row.n} sales orders are partially_delivered or closed, which the schema before it cannot hold.`);
  }
  await knex.schema.dropTableIfExists('shipment_items');
  await knex.schema.dropTableIfExists('shipments');
  // ALTER TABLE … DROP COLUMN on both engines: Knex's SQLite dropColumn copies the table and drops
  // the old one, which the foreign keys of existing lines and history forbid.
  for (const [table, column] of [['sales_orders', 'hold_reason'], ['sales_orders', 'on_hold'], ['sales_order_items', 'delivered_quantity']]) {
    await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
}
