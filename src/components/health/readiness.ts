/**
 * Readiness (GET /readyz): whether this instance can serve requests, for a load balancer. It
 * needs its database to answer with every migration of this version applied (one query does both),
 * and Redis to answer when REDIS_URL is set. Storage and heartbeats are /health's business: they
 * do not take an instance out of the balancer.
 */
import type { AppDeps } from '../../platform/app-deps.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { migrationSource } from '../../../db/migrations/index.js';
import { CHECK_TIMEOUT_MS, withTimeout } from './check-timeout.js';
import * as repository from './health.repository.js';

type Readiness = Schema<'Readiness'>;

const messages = {
  database: 'The database does not answer.',
  migrations: (pending: string[]) =>
    `${pending.length} migration${pending.length === 1 ? ' is' : 's are'} not applied (${pending.join(', ')}); run the migrations.`,
  redis: 'Redis (REDIS_URL) does not answer.',
};

/** The migrations of this version that the database has not recorded; undefined when it does not answer. */
async function pendingMigrations(deps: AppDeps): Promise<string[] | undefined> {
  const work = (async () => {
    const applied = new Set(await repository.appliedMigrations(deps.db));
    return (await migrationSource.getMigrations([])).filter((name) => !applied.has(name));
  })();
  return withTimeout(work, undefined);
}

export async function checkReadiness(deps: AppDeps): Promise<Readiness> {
  const [pending, redis] = await Promise.all([pendingMigrations(deps), deps.redis?.ping(CHECK_TIMEOUT_MS)]);
  const database = pending !== undefined;
  const migrations = database && pending.length === 0;
  const reasons = [
    ...(database ? [] : [messages.database]),
    ...(database && !migrations ? [messages.migrations(pending)] : []),
    ...(redis === false ? [messages.redis] : []),
  ];
  return {
    status: reasons.length === 0 ? 'ready' : 'not_ready',
    checks: redis === undefined ? { database, migrations } : { database, migrations, redis },
    reasons,
  };
}
