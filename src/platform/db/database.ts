/**
 * The Knex instance for DATABASE_URL: SQLite through better-sqlite3 (one connection: SQLite
 * serialises writes anyway, and an in-memory database lives in one connection) or MySQL/MariaDB
 * through mysql2.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';

export type Engine = 'sqlite' | 'mysql';

export function engineOf(db: Knex | Knex.Transaction): Engine {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

function sqliteConfig(url: string): Knex.Config {
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return {
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      idleTimeoutMillis: Number.MAX_SAFE_INTEGER,
      afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        if (file !== ':memory:') conn.pragma('journal_mode = WAL');
        done(null, conn);
      },
    },
  };
}

export interface DbOptions {
  poolMax?: number;
  /** Knex's own warnings and errors (default: knex prints them on the console). */
  log?: Knex.Config['log'];
}

function mysqlConfig(url: string, poolMax: number): Knex.Config {
  const u = new URL(url);
  return {
    client: 'mysql2',
    connection: {
      host: u.hostname,
      port: u.port ? Number(u.port) : 3306,
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: u.pathname.replace(/^\//, ''),
      charset: 'utf8mb4',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      decimalNumbers: true,
      connectTimeout: 5000,
    },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  };
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Knex {
  const config = databaseUrl.startsWith('sqlite:')
    ? sqliteConfig(databaseUrl)
    : mysqlConfig(databaseUrl, options.poolMax ?? 10);
  return knex(options.log ? { ...config, log: options.log } : config);
}

/** Inserts one row and answers its id (MySQL ignores RETURNING and answers the insert id). */
export async function insertReturningId(db: Knex | Knex.Transaction, table: string, row: object): Promise<number> {
  if (engineOf(db) === 'mysql') {
    const [id] = (await db(table).insert(row)) as number[];
    return Number(id);
  }
  const [inserted] = (await db(table).insert(row).returning('id')) as Array<{ id: number }>;
  return Number(inserted!.id);
}
