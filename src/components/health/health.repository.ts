/** The database probe and the heartbeats table. */
import type { Knex } from 'knex';
import { nowDb } from '../../kernel/time.js';

export async function pingDatabase(db: Knex): Promise<void> {
  await db.raw('select 1');
}

export async function listHeartbeats(db: Knex): Promise<Array<{ name: string; last_ping_at: string }>> {
  return db('heartbeats').select('name', 'last_ping_at').orderBy('name');
}

export async function recordHeartbeat(db: Knex, name: string): Promise<void> {
  await db('heartbeats').insert({ name, last_ping_at: nowDb() }).onConflict('name').merge(['last_ping_at']);
}

/** The names of the migrations the database has recorded (none before the first migration). */
export async function appliedMigrations(db: Knex): Promise<string[]> {
  try {
    return (await db('knex_migrations').select('name')).map((row: { name: string }) => row.name);
  } catch (error) {
    if (await db.schema.hasTable('knex_migrations')) throw error;
    return [];
  }
}
