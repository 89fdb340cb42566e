/**
 * What `rollback` would drop, and whether the database is still in use: the tables the applied
 * migrations created (learnt by applying the same migrations to a scratch in-memory SQLite
 * database, so that an operator's own tables beside them are not named), each with its row count
 * here, and the heartbeats written lately by servers (the scheduler's `cron`, every minute) and
 * webhook workers (every round).
 */
import type { Knex } from 'knex';
import { migrationSource } from '../../db/migrations/index.js';
import { listHeartbeats } from '../components/health/health.repository.js';
import { epochMs } from '../kernel/time.js';
import { createDb } from '../platform/db/database.js';
import { rowCount, tableNames } from '../platform/db/schema-tables.js';

/** knex's own bookkeeping, which a rollback keeps. */
const KNEX_TABLES = new Set(['knex_migrations', 'knex_migrations_lock']);

/**
 * A heartbeat this recent means a server or worker is running on the database: the scheduler
 * writes `cron` every minute, a webhook worker writes its heartbeat every round.
 */
export const LIVE_HEARTBEAT_MS = 120_000;

export interface TableRows {
  name: string;
  rows: number;
}

/** The tables the first `count` migrations create, as they stand after them. */
async function tablesMigrationsCreate(count: number): Promise<Set<string>> {
  const scratch = createDb('sqlite::memory:');
  try {
    for (let i = 0; i < count; i++) await scratch.migrate.up({ migrationSource });
    return new Set((await tableNames(scratch)).filter((name) => !KNEX_TABLES.has(name)));
  } finally {
    await scratch.destroy();
  }
}

/** The tables rolling back `applied` migrations drops from `db`, with the rows each holds. */
export async function tablesToDrop(db: Knex, applied: number): Promise<TableRows[]> {
  const created = await tablesMigrationsCreate(applied);
  const here = (await tableNames(db)).filter((name) => created.has(name));
  const out: TableRows[] = [];
  for (const name of here) out.push({ name, rows: await rowCount(db, name) });
  return out;
}

export interface LiveHeartbeat {
  name: string;
  secondsAgo: number;
}

/** The heartbeats written in the last LIVE_HEARTBEAT_MS, newest first (none when the table is gone). */
export async function liveHeartbeats(db: Knex, now = Date.now()): Promise<LiveHeartbeat[]> {
  if (!(await db.schema.hasTable('heartbeats'))) return [];
  return (await listHeartbeats(db))
    .map((row) => ({ name: row.name, secondsAgo: Math.max(0, Math.round((now - epochMs(row.last_ping_at)) / 1000)) }))
    .filter((beat) => beat.secondsAgo * 1000 < LIVE_HEARTBEAT_MS)
    .sort((a, b) => a.secondsAgo - b.secondsAgo);
}
