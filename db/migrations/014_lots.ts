/**
 * Lots and expiry (issue 22): articles may track lots and expiry dates, and stock is kept per lot
 * and expiry date.
 *
 * - `articles.lot_tracked`, `articles.expiry_tracked` (false for every existing article).
 * - The stock key gains `lot` and `expiry_date` on the balances and on the ledger. Both are NOT NULL
 *   with '' for "none": a unique index treats NULLs as distinct on both engines, so a nullable key
 *   column would let the balance upsert create a second row for the same key. The API shows '' as
 *   null. Existing balances and movements keep their one key each, with '' and ''.
 *   `expiry_date` is `YYYY-MM-DD` text, which sorts as the date does (FEFO orders by it).
 * - Inbound lines (receptions, returns, adjustments, transfers) keep the lot and expiry they named;
 *   a sales order line may pin a lot; `shipment_item_lots` records what each shipped line took.
 * - `stock_reservations`: what open sales orders reserve of an article that tracks lots or expiry,
 *   per stock key without lot and per pinned lot ('' unpinned). The `reserved` of each of its
 *   balance rows is the allocation of those totals (earliest expiry first), kept by the stock service.
 */
import type { Knex } from 'knex';

const KEY = ['company_id', 'warehouse_id', 'article_id', 'stock_type'];
const LOT_KEY = [...KEY, 'lot', 'expiry_date'];
const LINE_TABLES = ['reception_items', 'return_items', 'stock_adjustment_items', 'stock_transfer_items'];

function fk(t: Knex.CreateTableBuilder, column: string, table: string): Knex.ReferencingColumnBuilder {
  return t.integer(column).unsigned().references('id').inTable(table);
}

function lotColumns(t: Knex.AlterTableBuilder | Knex.CreateTableBuilder): void {
  t.string('lot', 64).notNullable().defaultTo('').collate('utf8mb4_bin');
  t.string('expiry_date', 10).notNullable().defaultTo('');
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('articles', (t) => {
    t.boolean('lot_tracked').notNullable().defaultTo(false);
    t.boolean('expiry_tracked').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('stock_balances', lotColumns);
  await knex.schema.alterTable('stock_balances', (t) => {
    t.unique(LOT_KEY, { indexName: 'stock_balances_lot_key_unique' });
  });
  await knex.schema.alterTable('stock_balances', (t) => {
    t.dropUnique(KEY, 'stock_balances_key_unique');
  });
  await knex.schema.alterTable('stock_movements', lotColumns);
  await knex.schema.alterTable('stock_movements', (t) => {
    t.index([...LOT_KEY, 'created_at'], 'stock_movements_lot_key_time_index');
    t.index(['article_id', 'lot', 'id'], 'stock_movements_article_lot_index');
  });
  await knex.schema.alterTable('stock_movements', (t) => {
    t.dropIndex([...KEY, 'created_at'], 'stock_movements_key_time_index');
  });
  for (const table of LINE_TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.string('lot', 64).nullable().collate('utf8mb4_bin');
      t.string('expiry_date', 10).nullable();
    });
  }
  await knex.schema.alterTable('sales_order_items', (t) => {
    t.string('lot', 64).nullable().collate('utf8mb4_bin');
  });
  await knex.schema.createTable('shipment_item_lots', (t) => {
    t.increments('id');
    fk(t, 'shipment_item_id', 'shipment_items').notNullable().index();
    lotColumns(t);
    t.bigInteger('quantity').notNullable();
  });
  await knex.schema.createTable('stock_reservations', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'warehouse_id', 'warehouses').notNullable();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('stock_type', 24).notNullable();
    /** The pinned lot; '' for what lines without a pin reserve. */
    t.string('lot', 64).notNullable().defaultTo('').collate('utf8mb4_bin');
    t.bigInteger('quantity').notNullable().defaultTo(0);
    t.unique([...KEY, 'lot'], { indexName: 'stock_reservations_key_unique' });
    t.check('?? >= 0', ['quantity'], 'stock_reservations_quantity_not_negative');
  });
}

/**
 * Rolling back forgets lots. Stock of several lots of one article cannot be held by the schema
 * before, so the rollback refuses while any article tracks lots or expiry, rather than merge
 * balances and their ledger into something the older code would read wrongly.
 */
export async function down(knex: Knex): Promise<void> {
  const row = (await knex('articles').where('lot_tracked', true).orWhere('expiry_tracked', true).count({ n: '*' }).first()) as { n: number | string };
  if (Number(row.n) > 0) {
    throw new Error(`014_lots cannot be rolled back: ${row.n} articles track lots or expiry dates, whose stock the schema before it cannot hold.`);
  }
  await knex.schema.dropTableIfExists('stock_reservations');
  await knex.schema.dropTableIfExists('shipment_item_lots');
  await knex.schema.alterTable('stock_movements', (t) => {
    t.index([...KEY, 'created_at'], 'stock_movements_key_time_index');
  });
  await knex.schema.alterTable('stock_movements', (t) => {
    t.dropIndex([...LOT_KEY, 'created_at'], 'stock_movements_lot_key_time_index');
    t.dropIndex(['article_id', 'lot', 'id'], 'stock_movements_article_lot_index');
  });
  await knex.schema.alterTable('stock_balances', (t) => {
    t.unique(KEY, { indexName: 'stock_balances_key_unique' });
  });
  await knex.schema.alterTable('stock_balances', (t) => {
    t.dropUnique(LOT_KEY, 'stock_balances_lot_key_unique');
  });
  // ALTER TABLE … DROP COLUMN on both engines (Knex's SQLite dropColumn copies the table, which the
  // foreign keys of other tables forbid).
  const columns: Array<[string, string]> = [
    ['stock_balances', 'lot'], ['stock_balances', 'expiry_date'],
    ['stock_movements', 'lot'], ['stock_movements', 'expiry_date'],
    ...LINE_TABLES.flatMap((table): Array<[string, string]> => [[table, 'lot'], [table, 'expiry_date']]),
    ['sales_order_items', 'lot'],
    ['articles', 'lot_tracked'], ['articles', 'expiry_tracked'],
  ];
  for (const [table, column] of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
}
