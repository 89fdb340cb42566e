/**
 * The webhook worker finds the events waiting for their fan-out (dispatched_at and
 * fan_out_failed_at both null, oldest first: webhooks.queue.ts) through one index with both
 * columns before the id. With (dispatched_at, id) beside (fan_out_failed_at), SQLite took the
 * latter, which every waiting and every dispatched event matches, and read the whole outbox for
 * each round: 50 ms a round with 106,000 events (the bench's volume after its writes), 0.5 ms
 * through this index. (dispatched_at, fan_out_failed_at, id) serves what (dispatched_at, id) did.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_events', (t) => {
    t.index(['dispatched_at', 'fan_out_failed_at', 'id']);
  });
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropIndex(['dispatched_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_events', (t) => {
    t.index(['dispatched_at', 'id']);
  });
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropIndex(['dispatched_at', 'fan_out_failed_at', 'id']);
  });
}
