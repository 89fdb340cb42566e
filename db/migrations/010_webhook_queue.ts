/**
 * The webhook queue under load.
 * - Outbox events whose fan-out into deliveries fails (a poison event: its data cannot be read, or
 *   a delivery of it cannot be written) are counted and, after a few attempts, set aside so the
 *   events behind them flow: fan_out_attempts counts the failed attempts, fan_out_error keeps the
 *   last error (the driver's message, never data), fan_out_failed_at marks an event set aside.
 * - Claims find the due deliveries in next_attempt_at order through an index that starts with it
 *   (the one on status first made both engines sort every pending row for each claim: 20 ms on
 *   SQLite and 70 ms on MariaDB with 40,000 pending), and a worker finds its claimed deliveries by
 *   claim_token through an index instead of reading the table.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_events', (t) => {
    t.integer('fan_out_attempts').notNullable().defaultTo(0);
    t.string('fan_out_error', 500).nullable();
    t.datetime('fan_out_failed_at', { precision: 6 }).nullable();
    t.index(['fan_out_failed_at']);
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['status', 'next_attempt_at']);
    t.index(['next_attempt_at', 'status']);
    t.index(['claim_token']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['claim_token']);
    t.dropIndex(['next_attempt_at', 'status']);
    t.index(['status', 'next_attempt_at']);
  });
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropIndex(['fan_out_failed_at']);
    t.dropColumn('fan_out_failed_at');
    t.dropColumn('fan_out_error');
    t.dropColumn('fan_out_attempts');
  });
}
