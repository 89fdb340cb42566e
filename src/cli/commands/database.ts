/**
 * The schema: `migrate` applies the migrations this build has and the database lacks; `rollback`
 * undoes every one of them, which drops every table of the service with its data, and so asks
 * for --force and says first what it would drop. Neither migrates before it runs.
 */
import type { Knex } from 'knex';
import { migrationSource } from '../../../db/migrations/index.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';

const MIGRATIONS_TABLE = 'knex_migrations';

/** The migrations applied to the database, newest first, read without creating knex's table. */
async function appliedMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return [];
  const rows = (await db(MIGRATIONS_TABLE).select('name').orderBy('id', 'desc')) as Array<{ name: string }>;
  return rows.map((r) => r.name);
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

export const migrateCommand = defineCommand({
  name: 'migrate',
  summary: 'Apply the migrations this version has and the database lacks (the server migrates SQLite at start; MariaDB/MySQL: run this before starting a new version).',
  options: {},
  migrateFirst: false,
  async run(db, _o, out) {
    const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
    const all = await appliedMigrations(db);
    out(applied.length > 0 ? `Migrated the database (${plural(applied.length, 'migration')}: ${applied.join(', ')}).` : `The database is up to date (${plural(all.length, 'migration')}).`);
  },
});

export const rollbackCommand = defineCommand({
  name: 'rollback',
  summary: 'Undo every migration: drops every table of the service with all its data. Says what it would drop unless --force.',
  options: { force: { kind: 'flag', help: 'really drop every table and its data' } },
  migrateFirst: false,
  async run(db, o, out) {
    const applied = await appliedMigrations(db);
    if (applied.length === 0) {
      out('Nothing to roll back: no migration is applied to this database.');
      return;
    }
    const what = `every table of the service and all its data (${plural(applied.length, 'migration')} to undo: ${applied.join(', ')})`;
    if (!o.force) throw new UsageError(`rollback drops ${what}. Run rollback --force to do it.`);
    await db.migrate.rollback({ migrationSource }, true);
    out(`Rolled back ${plural(applied.length, 'migration')} (${applied.join(', ')}): the tables of the service are dropped.`);
  },
});

export const databaseCommands = [migrateCommand, rollbackCommand];
