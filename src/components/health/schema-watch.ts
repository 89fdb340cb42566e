/**
 * An instance started before its release's `migrate` ran (on MariaDB the server does not migrate;
 * deployment.md says to migrate first, and /readyz keeps the balancer away meanwhile) meets a
 * schema without the tables and columns it was written for. While the database lacks migrations
 * of this version, a statement that fails on a missing table or column is marked (driver-errors.ts
 * markSchemaBehind), and the request answers 503 with Retry-After ("being upgraded"), which a
 * client retries, rather than a 500. Requests that do not touch what changed keep working.
 *
 * Asked once at start, then every `everyMs` until every migration is applied; then the watch ends
 * (a migration only comes with a new version, a new process). A database that does not answer is
 * asked again at the next interval, nothing marked meanwhile.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { isSchemaMismatch, markSchemaBehind } from '../../platform/db/driver-errors.js';
import { pendingMigrationNames } from './readiness.js';

export interface SchemaWatch {
  /** Asks the database now (the timer asks every `everyMs` while migrations are pending). */
  check(): Promise<void>;
  /** Ends the watch; resolves once a check under way has finished (before the database closes). */
  stop(): Promise<void>;
}

const markIfMismatch = (error: unknown): void => {
  if (isSchemaMismatch(error)) markSchemaBehind(error);
};

export function watchSchema(db: Knex, logger: Logger, { everyMs = 10_000 } = {}): SchemaWatch {
  let pending: readonly string[] = [];
  /** Whether the database has answered once: until then the watch goes on whatever `pending` says. */
  let read = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;
  const behind = (names: readonly string[]): void => {
    if (pending.length === 0 && names.length > 0) {
      db.on('query-error', markIfMismatch);
      logger.warn({ pending: names }, `${names.length} migration${names.length === 1 ? ' is' : 's are'} not applied: requests that need them answer 503 until migrate runs`);
    }
    if (pending.length > 0 && names.length === 0) {
      db.off('query-error', markIfMismatch);
      logger.info('every migration is applied: the upgrade is complete');
    }
    pending = names;
  };
  const stop = async (): Promise<void> => {
    clearInterval(timer);
    timer = undefined;
    await checking;
    db.off('query-error', markIfMismatch);
  };
  const check = async (): Promise<void> => {
    checking ??= pendingMigrationNames(db)
      .then(
        (names) => {
          read = true;
          behind(names);
        },
        (err: unknown) => logger.warn({ err }, 'pending migrations not read: asked again at the next interval'),
      )
      .finally(() => (checking = undefined));
    await checking;
    if (read && pending.length === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  timer = setInterval(() => void check(), everyMs);
  timer.unref();
  void check();
  return { check, stop };
}
