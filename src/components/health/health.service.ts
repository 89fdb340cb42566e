/**
 * The health of the service: real checks of the database, Redis (when configured), the storage
 * folders and the heartbeats. The database decides up (200) or down (503). `checks.redis` and
 * `checks.cache` are false when no Redis is configured (there is none to answer), and then do not
 * make the status degraded.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { MODULES } from '../../kernel/access.js';
import { epochMs, toApiTime } from '../../kernel/time.js';
import type { AppDeps } from '../../platform/app-deps.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import * as repository from './health.repository.js';
import { CHECK_TIMEOUT_MS, withTimeout } from './check-timeout.js';

type Health = Schema<'Health'>;
/** The heartbeat the scheduler writes; shown as a placeholder until it has run once. */
export const CRON_HEARTBEAT = 'cron';
export { CHECK_TIMEOUT_MS };

async function writable(folder: string): Promise<boolean> {
  try {
    await mkdir(folder, { recursive: true });
    // Unique per check: two checks in the same millisecond must not unlink each other's file.
    const probe = path.join(folder, `.health-${process.pid}-${randomUUID()}`);
    await writeFile(probe, 'ok');
    await unlink(probe);
    return true;
  } catch {
    return false;
  }
}

async function heartbeats(deps: AppDeps, databaseUp: boolean, now: number): Promise<Health['heartbeats']> {
  const staleAfterMinutes = deps.config.heartbeatStaleMinutes;
  const rows = databaseUp ? await withTimeout(repository.listHeartbeats(deps.db), []) : [];
  if (rows.length === 0) {
    return {
      stale_after_minutes: staleAfterMinutes,
      no_records: true,
      items: [{ name: CRON_HEARTBEAT, last_ping_at: null, last_ping_at_ms: null, ok: false }],
    };
  }
  return {
    stale_after_minutes: staleAfterMinutes,
    no_records: false,
    items: rows.map((row) => {
      const at = epochMs(row.last_ping_at);
      return { name: row.name, last_ping_at: toApiTime(row.last_ping_at), last_ping_at_ms: at, ok: now - at <= staleAfterMinutes * 60_000 };
    }),
  };
}

export async function checkHealth(deps: AppDeps, now = Date.now()): Promise<Health> {
  const { config } = deps;
  const [database, redis, storage, storagePublic] = await Promise.all([
    withTimeout(repository.pingDatabase(deps.db).then(() => true), false),
    deps.redis ? deps.redis.ping(CHECK_TIMEOUT_MS) : Promise.resolve(false),
    writable(config.storagePath),
    writable(path.join(config.storagePath, 'public')),
  ]);
  const beats = await heartbeats(deps, database, now);
  const checks = {
    database,
    cache: redis,
    queue: database,
    redis,
    storage,
    storage_public: storagePublic,
    heartbeat: !beats.no_records && beats.items.every((item) => item.ok),
  };
  const counted = Object.entries(checks).filter(([name]) => deps.redis !== undefined || (name !== 'redis' && name !== 'cache'));
  return {
    status: !database ? 'down' : counted.every(([, passes]) => passes) ? 'ok' : 'degraded',
    app: { name: config.appName, env: config.appEnv },
    urls: { app: config.appUrl, api: `${config.appUrl}/api` },
    checks,
    heartbeats: beats,
    integrations: { anaf: config.anafEnabled, etsm: config.etsmToken !== undefined, mdm: config.mdmToken !== undefined },
    modules: MODULES.map((m) => ({ slug: m.slug, name: m.name })),
    timestamp: toApiTime(new Date(now)),
  };
}

/** Records that the job `name` (the scheduler's `cron`, a webhook worker) is alive now. */
export function recordHeartbeat(db: Knex, name: string): Promise<void> {
  return repository.recordHeartbeat(db, name);
}
export { checkReadiness } from './readiness.js';
