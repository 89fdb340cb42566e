/**
 * Articles of client companies. `article_code` is unique per client and compared case-sensitively
 * on both engines (binary collation on MySQL/MariaDB; SQLite compares bytes). The (company_id, id)
 * index serves lists and the keyset sync; (company_id, updated_at) serves `updated_since`.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('articles', (t) => {
    t.increments('id');
    t.integer('company_id').unsigned().notNullable().references('id').inTable('companies');
    t.string('article_code', 64).notNullable().collate('utf8mb4_bin');
    t.string('name', 255).nullable();
    t.string('description', 1000).notNullable();
    t.string('um3pl', 16).notNullable();
    t.boolean('integer_only_um3pl_quantity').notNullable().defaultTo(false);
    t.string('barcode', 64).nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.datetime('created_at', { precision: 6 }).notNullable();
    t.datetime('updated_at', { precision: 6 }).notNullable();
    t.unique(['company_id', 'article_code']);
    t.index(['company_id', 'id']);
    t.index(['company_id', 'updated_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('articles');
}
