/**
 * The migrations, in order, as an in-code source: tsx and the compiled build record the same
 * names. A new migration is a new file here and one line below.
 */
import type { Knex } from 'knex';
import * as m001 from './001_platform.js';

const migrations: Record<string, Knex.Migration> = {
  '001_platform': m001,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

export async function migrateLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

export async function rollbackAll(db: Knex): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}
