/**
 * The events feed (GET /api/events): each outbox event gets `feed_seq`, its place in the feed,
 * after its transaction committed (src/platform/feeds/sequencer.ts); `feed_sequences` holds the
 * last place given, one row per feed, whose lock makes the stamps of two stampers take turns.
 * Events recorded before this migration are stamped by the stamper, oldest first. `occurred_at`
 * is indexed for the retention cleanup.
 *
 * MySQL/MariaDB index every foreign key by itself and drop that index once another one starts
 * with the same column: (company_id, feed_seq) takes over the index of `company_id`'s foreign key,
 * so going down gives the key its own index back (under the key's name) before dropping the pair.
 */
import type { Knex } from 'knex';

function indexesForeignKeys(knex: Knex): boolean {
  return knex.client.config.client === 'mysql2';
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('feed_sequences', (t) => {
    t.string('name', 32).primary();
    t.bigInteger('last_seq').notNullable().defaultTo(0);
  });
  await knex('feed_sequences').insert({ name: 'events', last_seq: 0 });
  await knex.schema.alterTable('outbox_events', (t) => {
    t.bigInteger('feed_seq').nullable().unique();
    t.index(['company_id', 'feed_seq']);
    t.index(['occurred_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  if (indexesForeignKeys(knex)) {
    await knex.schema.alterTable('outbox_events', (t) => {
      t.index(['company_id'], 'outbox_events_company_id_foreign');
    });
  }
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropIndex(['occurred_at']);
    t.dropIndex(['company_id', 'feed_seq']);
    t.dropUnique(['feed_seq']);
    t.dropColumn('feed_seq');
  });
  await knex.schema.dropTableIfExists('feed_sequences');
}
