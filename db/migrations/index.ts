/**
 * The migrations, in order, as an in-code source: tsx and the compiled build record the same
 * names. A new migration is a new file here and one line below.
 */
import type { Knex } from 'knex';
import * as m001 from './001_platform.js';
import * as m002 from './002_articles.js';
import * as m003 from './003_outbox_events.js';
import * as m004 from './004_idempotency_keys.js';
import * as m005 from './005_inbound_and_stock.js';
import * as m006 from './006_outbound_and_returns.js';
import * as m007 from './007_webhooks.js';
import * as m008 from './008_article_id_sequence.js';
import * as m009 from './009_lines_by_article.js';
import * as m010 from './010_webhook_queue.js';
import * as m011 from './011_events_feed.js';
import * as m012 from './012_shipments.js';
import * as m013 from './013_inventory.js';
import * as m014 from './014_lots.js';
import * as m015 from './015_outbox_waiting_index.js';
import * as m016 from './016_codes_compare_exactly.js';
import * as m017 from './017_user_deactivation.js';
import * as m018 from './018_reference_codes_compare_exactly.js';
import * as m019 from './019_held_deliveries.js';

const migrations: Record<string, Knex.Migration> = {
  '001_platform': m001,
  '002_articles': m002,
  '003_outbox_events': m003,
  '004_idempotency_keys': m004,
  '005_inbound_and_stock': m005,
  '006_outbound_and_returns': m006,
  '007_webhooks': m007,
  '008_article_id_sequence': m008,
  '009_lines_by_article': m009,
  '010_webhook_queue': m010,
  '011_events_feed': m011,
  '012_shipments': m012,
  '013_inventory': m013,
  '014_lots': m014,
  '015_outbox_waiting_index': m015,
  '016_codes_compare_exactly': m016,
  '017_user_deactivation': m017,
  '018_reference_codes_compare_exactly': m018,
  '019_held_deliveries': m019,
};

/** The migration whose up or down an error was thrown by (failedMigrationOf). */
const FAILED_IN = Symbol('the migration that failed');

/** `migration` whose failures carry its name, so that the CLI says which one failed in its one line. */
function naming(name: string, migration: Knex.Migration): Knex.Migration {
  const mark = (error: unknown): never => {
    if (typeof error === 'object' && error !== null && !(FAILED_IN in error)) Object.defineProperty(error, FAILED_IN, { value: name });
    throw error;
  };
  const { down } = migration;
  return {
    ...migration,
    up: (knex) => Promise.resolve().then(() => migration.up(knex)).catch(mark),
    ...(down && { down: (knex: Knex) => Promise.resolve().then(() => down(knex)).catch(mark) }),
  };
}

/** The name of the migration `error` was thrown by, or undefined for an error that no migration threw. */
export function failedMigrationOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { [FAILED_IN]?: string })[FAILED_IN] : undefined;
}

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => naming(name, migrations[name]!),
};

export async function migrateLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

/** Migrates up to and including `last` (a migration's name), for tests of a migration over older data. */
export async function migrateTo(db: Knex, last: string): Promise<void> {
  const names = Object.keys(migrations);
  if (!names.includes(last)) throw new Error(`No migration ${last}`);
  const source: Knex.MigrationSource<string> = { ...migrationSource, getMigrations: async () => names.slice(0, names.indexOf(last) + 1) };
  await db.migrate.latest({ migrationSource: source });
}

export async function rollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}
