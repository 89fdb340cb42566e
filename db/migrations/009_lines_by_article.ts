/**
 * Indexes for reads by article and by change time that the edges of the model added: the unit
 * rules read an article's lines on open purchase and sales orders (MySQL/MariaDB index every
 * foreign key by itself; SQLite does not, so it gets these), and GET /api/returns filters by
 * `updated_since` within the company like the other lists.
 */
import type { Knex } from 'knex';

const BY_ARTICLE = ['purchase_order_items', 'sales_order_items'];

function indexesForeignKeys(knex: Knex): boolean {
  return knex.client.config.client === 'mysql2';
}

export async function up(knex: Knex): Promise<void> {
  if (!indexesForeignKeys(knex)) {
    for (const table of BY_ARTICLE) await knex.schema.alterTable(table, (t) => t.index(['article_id']));
  }
  await knex.schema.alterTable('returns', (t) => {
    t.index(['company_id', 'updated_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('returns', (t) => {
    t.dropIndex(['company_id', 'updated_at']);
  });
  if (!indexesForeignKeys(knex)) {
    for (const table of BY_ARTICLE) await knex.schema.alterTable(table, (t) => t.dropIndex(['article_id']));
  }
}
