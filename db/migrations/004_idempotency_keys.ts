/**
 * Idempotency keys: one row per (company, key), claimed by a unique insert before the work runs,
 * holding the request's fingerprint and, once done, the response to replay.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.bigIncrements('id');
    t.integer('company_id').unsigned().notNullable();
    t.string('idempotency_key', 255).notNullable().collate('utf8mb4_bin');
    t.string('request_hash', 64).notNullable();
    t.string('state', 16).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body', 'mediumtext').nullable();
    t.datetime('created_at', { precision: 6 }).notNullable();
    t.datetime('expires_at', { precision: 6 }).notNullable().index();
    t.unique(['company_id', 'idempotency_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
