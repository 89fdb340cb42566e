/**
 * Readiness (GET /readyz): whether this instance can serve requests, for a load balancer. It
 * needs its database to answer with every migration of this version applied and none this version
 * does not know (a newer version's: after a rollback of the code alone; one query does all three),
 * and Redis to answer when REDIS_URL is set. Storage and heartbeats are /health's business: they
 * do not take an instance out of the balancer.
 */
import type { Knex } from 'knex';
import type { AppDeps } from '../../platform/app-deps.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { migrationSource } from '../../../db/migrations/index.js';
import { CHECK_TIMEOUT_MS, withTimeout } from './check-timeout.js';
import * as repository from './health.repository.js';

type Readiness = Schema<'Readiness'>;

const messages = {
  database: 'The database does not answer.',
  unknownDatabase: 'The database named in DATABASE_URL does not exist on its server.',
  accessDenied: "The database server refused DATABASE_URL's user or password.",
  migrations: (pending: string[]) =>
    `${pending.length} migration${pending.length === 1 ? ' is' : 's are'} not applied (${pending.join(', ')}); run the migrations.`,
  newerSchema: (unknown: string[]) =>
    `The database was migrated by a newer version of the service (${unknown.join(', ')}), which this version does not know; run that version, or restore the backup taken before its migrate.`,
  redis: 'Redis (REDIS_URL) does not answer.',
};

/**
 * Why the database cannot be used, as an operator fixes it: the server answered and refused the
 * configuration (a database name or credentials of DATABASE_URL), or it does not answer. Only the
 * kind is said, never the server's text (it names the user and the client's address).
 */
export function databaseProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ER_BAD_DB_ERROR') return messages.unknownDatabase;
  // 1698: an unknown user on a server that authenticates by socket (MariaDB's unix_socket plugin).
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR' || code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR') return messages.accessDenied;
  return messages.database;
}

interface MigrationState {
  /** This version's migrations that the database has not recorded. */
  pending: string[];
  /** Migrations the database has recorded that this version does not know (a newer version ran them). */
  unknown: string[];
}

async function migrationState(db: Knex): Promise<MigrationState> {
  const applied = await repository.appliedMigrations(db);
  const known = await migrationSource.getMigrations([]);
  const [appliedSet, knownSet] = [new Set(applied), new Set(known)];
  return { pending: known.filter((name) => !appliedSet.has(name)), unknown: applied.filter((name) => !knownSet.has(name)) };
}

/** The migrations of this version that the database has not recorded. */
export async function pendingMigrationNames(db: Knex): Promise<string[]> {
  return (await migrationState(db)).pending;
}

/** What this version and the database's record of migrations differ by, or why the database cannot tell. */
async function migrationsOf(deps: AppDeps): Promise<MigrationState | { problem: string }> {
  const work = migrationState(deps.db).catch((error: unknown) => ({ problem: databaseProblem(error) }));
  return withTimeout<MigrationState | { problem: string }>(work, { problem: messages.database });
}

export async function checkReadiness(deps: AppDeps): Promise<Readiness> {
  const [found, redis] = await Promise.all([migrationsOf(deps), deps.redis?.ping(CHECK_TIMEOUT_MS)]);
  const state = 'problem' in found ? undefined : found;
  const database = state !== undefined;
  const migrations = state !== undefined && state.pending.length === 0 && state.unknown.length === 0;
  const reasons = [
    ...('problem' in found ? [found.problem] : []),
    ...(state && state.pending.length > 0 ? [messages.migrations(state.pending)] : []),
    ...(state && state.unknown.length > 0 ? [messages.newerSchema(state.unknown)] : []),
    ...(redis === false ? [messages.redis] : []),
  ];
  return {
    status: reasons.length === 0 ? 'ready' : 'not_ready',
    checks: redis === undefined ? { database, migrations } : { database, migrations, redis },
    reasons,
  };
}
