/**
 * Webhook subscriptions and their deliveries. A delivery is one event for one subscription, with
 * the exact body it sends, its attempts, and a lease (claimed_until, claim_token) that a worker
 * takes before sending, so no two workers send one attempt and a dead worker's claim expires.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.increments('id');
    t.integer('company_id').unsigned().notNullable().references('id').inTable('companies');
    t.string('url', 2048).notNullable();
    t.text('events').notNullable();
    t.string('description', 255).nullable();
    t.string('secret', 128).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.string('disabled_reason', 500).nullable();
    t.datetime('failing_since', { precision: 6 }).nullable();
    t.datetime('created_at', { precision: 6 }).notNullable();
    t.datetime('updated_at', { precision: 6 }).notNullable();
    t.index(['company_id', 'id']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.integer('webhook_id').unsigned().notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.string('event_id', 40).notNullable();
    t.string('event_type', 64).notNullable();
    t.text('payload', 'mediumtext').notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.datetime('next_attempt_at', { precision: 6 }).nullable();
    t.integer('last_response_code').nullable();
    t.string('last_error', 500).nullable();
    t.datetime('delivered_at', { precision: 6 }).nullable();
    t.datetime('claimed_until', { precision: 6 }).nullable();
    t.string('claim_token', 40).nullable();
    t.datetime('created_at', { precision: 6 }).notNullable();
    t.datetime('updated_at', { precision: 6 }).notNullable();
    t.index(['webhook_id', 'id']);
    t.index(['status', 'next_attempt_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhooks');
}
