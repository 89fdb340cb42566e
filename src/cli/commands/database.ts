/**
 * The schema: `migrate` applies the migrations this build has and the database lacks; `rollback`
 * undoes every one of them, which drops every table of the service with its data, and so asks
 * for --force and says first what it would drop (the tables with their rows, the migrations), and
 * refuses while a server or worker still writes its heartbeat. Neither migrates before it runs.
 */
import type { Knex } from 'knex';
import { migrationSource } from '../../../db/migrations/index.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { LIVE_HEARTBEAT_MS, liveHeartbeats, tablesToDrop, type LiveHeartbeat, type TableRows } from '../rollback-plan.js';

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
  createsDatabase: true,
  async run(db, _o, out) {
    const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
    const all = await appliedMigrations(db);
    out(applied.length > 0 ? `Migrated the database (${plural(applied.length, 'migration')}: ${applied.join(', ')}).` : `The database is up to date (${plural(all.length, 'migration')}).`);
  },
});

/** `articles: 60, companies: 3` */
const rowsOf = (tables: TableRows[]): string => tables.map((t) => `${t.name}: ${t.rows}`).join(', ');

const running = (beats: LiveHeartbeat[]): string =>
  `a server or worker is running on this database (heartbeats: ${beats.map((b) => `${b.name} ${b.secondsAgo} s ago`).join(', ')})`;

const LIVE_MINUTES = LIVE_HEARTBEAT_MS / 60_000;

export const rollbackCommand = defineCommand({
  name: 'rollback',
  summary: `Undo every migration: drops every table of the service with all its data. Says what it would drop unless --force; refused while a server or worker has written a heartbeat in the last ${LIVE_MINUTES} minutes.`,
  options: { force: { kind: 'flag', help: 'really drop every table and its data' } },
  migrateFirst: false,
  async run(db, o, out) {
    const applied = await appliedMigrations(db);
    if (applied.length === 0) {
      out('Nothing to roll back: no migration is applied to this database.');
      return;
    }
    const live = await liveHeartbeats(db);
    if (!o.force) {
      const tables = await tablesToDrop(db, applied.length);
      const rows = tables.reduce((sum, t) => sum + t.rows, 0);
      const warning = live.length > 0 ? ` Now ${running(live)}: stop it first.` : '';
      throw new UsageError(
        `rollback drops every table of the service and all its data: ${plural(tables.length, 'table')} holding ${plural(rows, 'row')} (${rowsOf(tables)}), ` +
          `undoing ${plural(applied.length, 'migration')} (${applied.join(', ')}). Run rollback --force to do it.${warning}`,
      );
    }
    if (live.length > 0) {
      throw new UsageError(
        `rollback refused: ${running(live)}; dropping its tables would break it. Stop every server and worker that uses this database, then run rollback --force again once no heartbeat is newer than ${LIVE_MINUTES} minutes.`,
      );
    }
    const tables = await tablesToDrop(db, applied.length);
    await db.migrate.rollback({ migrationSource }, true);
    out(`Rolled back ${plural(applied.length, 'migration')} (${applied.join(', ')}): ${plural(tables.length, 'table')} of the service dropped (${tables.map((t) => t.name).join(', ')}).`);
  },
});

export const databaseCommands = [migrateCommand, rollbackCommand];
