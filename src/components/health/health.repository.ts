/** The database probe and the heartbeats table. */
import type { Knex } from 'knex';
import { nowDb } from '../../kernel/time.js';
import { engineOf } from '../../platform/db/database.js';

export async function pingDatabase(db: Knex): Promise<void> {
  await db.raw('select 1');
}

export async function listHeartbeats(db: Knex): Promise<Array<{ name: string; last_ping_at: string }>> {
  return db('heartbeats').select('name', 'last_ping_at').orderBy('name');
}

export async function recordHeartbeat(db: Knex, name: string): Promise<void> {
  await db('heartbeats').insert({ name, last_ping_at: nowDb() }).onConflict('name').merge(['last_ping_at']);
}

/**
 * On MariaDB the readiness probe's query does not wait for causality (wsrep_sync_wait, see
 * database.ts): a Galera node whose replication is paused for a moment (a node catching up, flow
 * control) is slow, not down, and must not take every instance out of the balancer at once. MySQL
 * has no SET STATEMENT (1064) and no such variable (1193): there the plain query runs.
 */
async function migrationRows(db: Knex): Promise<Array<{ name: string }>> {
  if (engineOf(db) === 'mysql') {
    try {
      const [rows] = (await db.raw('SET STATEMENT wsrep_sync_wait = 0 FOR SELECT name FROM knex_migrations')) as [Array<{ name: string }>];
      return rows;
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (errno !== 1064 && errno !== 1193) throw error;
    }
  }
  return db('knex_migrations').select('name');
}

/** The names of the migrations the database has recorded (none before the first migration). */
export async function appliedMigrations(db: Knex): Promise<string[]> {
  try {
    return (await migrationRows(db)).map((row) => row.name);
  } catch (error) {
    if (await db.schema.hasTable('knex_migrations')) throw error;
    return [];
  }
}
