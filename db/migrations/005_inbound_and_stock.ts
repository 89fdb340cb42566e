/**
 * Purchase orders and their lines, receptions and their lines, and the stock ledger: balances per
 * client, warehouse, article and stock type (never below zero: a CHECK on both engines besides the
 * conditional updates), and the movements that explain every balance.
 */
import type { Knex } from 'knex';

function timestamps(t: Knex.CreateTableBuilder): void {
  t.datetime('created_at', { precision: 6 }).notNullable();
  t.datetime('updated_at', { precision: 6 }).notNullable();
}

function fk(t: Knex.CreateTableBuilder, column: string, table: string): Knex.ReferencingColumnBuilder {
  return t.integer(column).unsigned().references('id').inTable(table);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('purchase_orders', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'partner_id', 'partners').notNullable();
    t.string('internal_code', 64).notNullable().collate('utf8mb4_bin');
    t.string('status', 24).notNullable();
    t.string('notes', 2000).nullable();
    t.string('external_reference', 255).nullable();
    timestamps(t);
    t.unique(['company_id', 'internal_code']);
    t.index(['company_id', 'id']);
    t.index(['company_id', 'updated_at']);
  });
  await knex.schema.createTable('purchase_order_items', (t) => {
    t.increments('id');
    fk(t, 'purchase_order_id', 'purchase_orders').notNullable().index();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('um3pl', 16).notNullable();
    t.bigInteger('quantity').notNullable();
    t.bigInteger('received_quantity').notNullable().defaultTo(0);
    t.check('?? >= 0 and ?? <= ??', ['received_quantity', 'received_quantity', 'quantity'], 'purchase_order_items_received_range');
  });
  await knex.schema.createTable('receptions', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'purchase_order_id', 'purchase_orders').notNullable().index();
    fk(t, 'warehouse_id', 'warehouses').notNullable();
    t.string('internal_code', 64).nullable().collate('utf8mb4_bin');
    t.string('notes', 2000).nullable();
    t.string('external_reference', 255).nullable();
    timestamps(t);
    t.unique(['company_id', 'internal_code']);
    t.index(['company_id', 'id']);
    t.index(['company_id', 'updated_at']);
  });
  await knex.schema.createTable('reception_items', (t) => {
    t.increments('id');
    fk(t, 'reception_id', 'receptions').notNullable().index();
    fk(t, 'po_item_id', 'purchase_order_items').notNullable().index();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('um3pl', 16).notNullable();
    t.bigInteger('quantity').notNullable();
  });
  await knex.schema.createTable('stock_balances', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'warehouse_id', 'warehouses').notNullable();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('stock_type', 24).notNullable();
    t.bigInteger('quantity').notNullable().defaultTo(0);
    t.datetime('updated_at', { precision: 6 }).notNullable();
    // Named: MySQL refuses the generated names of these indexes (over 64 characters).
    t.unique(['company_id', 'warehouse_id', 'article_id', 'stock_type'], { indexName: 'stock_balances_key_unique' });
    t.index(['company_id', 'id']);
    t.index(['article_id']);
    t.check('?? >= 0', ['quantity'], 'stock_balances_quantity_not_negative');
  });
  await knex.schema.createTable('stock_movements', (t) => {
    t.bigIncrements('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'warehouse_id', 'warehouses').notNullable();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('stock_type', 24).notNullable();
    t.bigInteger('delta').notNullable();
    t.string('cause', 32).notNullable();
    t.string('document_kind', 32).notNullable();
    t.integer('document_id').unsigned().notNullable();
    t.integer('user_id').unsigned().nullable();
    t.datetime('created_at', { precision: 6 }).notNullable();
    t.index(['company_id', 'warehouse_id', 'article_id', 'stock_type'], 'stock_movements_key_index');
    t.index(['document_kind', 'document_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['stock_movements', 'stock_balances', 'reception_items', 'receptions', 'purchase_order_items', 'purchase_orders']) {
    await knex.schema.dropTableIfExists(table);
  }
}
