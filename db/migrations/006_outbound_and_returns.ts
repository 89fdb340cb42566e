/**
 * Sales orders (with their status history), returns, and what open sales orders reserve on each
 * balance (`stock_balances.reserved`, kept in the same transactions as the orders).
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
  await knex.schema.alterTable('stock_balances', (t) => {
    t.bigInteger('reserved').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('sales_orders', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'partner_id', 'partners').notNullable();
    fk(t, 'source_warehouse_id', 'warehouses').notNullable();
    t.string('stock_type', 24).notNullable();
    t.string('internal_code', 64).notNullable().collate('utf8mb4_bin');
    t.string('status', 24).notNullable();
    t.string('notes', 2000).nullable();
    t.string('external_reference', 255).nullable();
    timestamps(t);
    t.unique(['company_id', 'internal_code']);
    t.index(['company_id', 'id']);
    t.index(['company_id', 'updated_at']);
  });
  await knex.schema.createTable('sales_order_items', (t) => {
    t.increments('id');
    fk(t, 'sales_order_id', 'sales_orders').notNullable().index();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('um3pl', 16).notNullable();
    t.bigInteger('quantity').notNullable();
  });
  await knex.schema.createTable('sales_order_status_history', (t) => {
    t.increments('id');
    fk(t, 'sales_order_id', 'sales_orders').notNullable().index();
    t.string('status', 24).notNullable();
    t.integer('user_id').unsigned().nullable();
    t.datetime('at', { precision: 6 }).notNullable();
  });
  await knex.schema.createTable('returns', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'partner_id', 'partners').notNullable();
    fk(t, 'warehouse_id', 'warehouses').notNullable();
    fk(t, 'sales_order_id', 'sales_orders').nullable().index();
    t.string('internal_code', 64).nullable().collate('utf8mb4_bin');
    t.string('reason', 500).nullable();
    timestamps(t);
    t.unique(['company_id', 'internal_code']);
    t.index(['company_id', 'id']);
  });
  await knex.schema.createTable('return_items', (t) => {
    t.increments('id');
    fk(t, 'return_id', 'returns').notNullable().index();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('um3pl', 16).notNullable();
    t.bigInteger('quantity').notNullable();
    t.string('stock_type', 24).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['return_items', 'returns', 'sales_order_status_history', 'sales_order_items', 'sales_orders']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('stock_balances', (t) => {
    t.dropColumn('reserved');
  });
}
