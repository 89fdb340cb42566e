/**
 * The event outbox: a domain change writes its events here in its own transaction; the webhook
 * worker fans them out (dispatched_at marks the ones it has).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbox_events', (t) => {
    t.bigIncrements('id');
    t.string('event_id', 40).notNullable().unique();
    t.integer('company_id').unsigned().notNullable().references('id').inTable('companies');
    t.string('type', 64).notNullable();
    t.text('data', 'mediumtext').notNullable();
    t.datetime('occurred_at', { precision: 6 }).notNullable();
    t.datetime('dispatched_at', { precision: 6 }).nullable();
    t.index(['dispatched_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('outbox_events');
}
