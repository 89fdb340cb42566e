/**
 * The Knex instance for DATABASE_URL: SQLite through better-sqlite3 (one connection: SQLite
 * serialises writes anyway, and an in-memory database lives in one connection) or MySQL/MariaDB
 * through mysql2.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { caseFold } from '../../kernel/text.js';
import { markQueryError } from './driver-errors.js';
import { foldCollation, type TextFold } from './text-fold.js';

export type Engine = 'sqlite' | 'mysql';

export function engineOf(db: Knex | Knex.Transaction): Engine {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

type KnexClass = new (...args: never[]) => object;
const knexInternals = createRequire(import.meta.url);

/**
 * Makes the SQLite client's transactions begin with BEGIN IMMEDIATE, taking the write lock at once.
 * With knex's plain BEGIN (deferred), a transaction that reads and then writes while another
 * process (the webhook worker beside the server) has written since its read fails at once with
 * SQLITE_BUSY: SQLite does not wait its busy_timeout where waiting could deadlock. Taken at BEGIN,
 * the lock is waited for like any other. knex has no option for it, so its SQLite transaction
 * class is extended (the client keeps its name, `better-sqlite3`).
 */
function beginImmediate(db: Knex): void {
  const SqliteTransaction = knexInternals('knex/lib/dialects/sqlite3/execution/sqlite-transaction.js') as KnexClass;
  class ImmediateTransaction extends SqliteTransaction {
    begin(conn: unknown): Promise<unknown> {
      return (this as unknown as { query(conn: unknown, sql: string): Promise<unknown> }).query(conn, 'BEGIN IMMEDIATE;');
    }
  }
  const client = db.client as { transaction(...args: unknown[]): object };
  client.transaction = (...args: unknown[]) => new ImmediateTransaction(...([client, ...args] as never[]));
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): unknown;
  function(name: string, options: { deterministic: boolean }, implementation: (value: unknown) => unknown): unknown;
}

/** Text with its case folded for SQL (SQLite's LOWER folds ASCII only): what a search compares (queries.ts whereContains). */
function caseFoldSql(value: unknown): unknown {
  return typeof value === 'string' ? caseFold(value) : value;
}

/** Statements kept per SQLite connection (a service's queries are a few hundred distinct texts). */
const STATEMENT_CACHE = 500;

/**
 * Keeps the connection's prepared statements by their SQL: knex prepares every query anew, and
 * compiling the SQL was a tenth of the CPU of a bulk write. A statement is reused once it is done
 * (better-sqlite3 runs each to its end before answering, and knex never iterates one), and SQLite
 * prepares it again by itself when the schema changes. The least recently used text goes first.
 */
function cacheStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const statements = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (statement !== undefined) {
      statements.delete(sql);
    } else {
      statement = prepare(sql);
      if (statements.size >= STATEMENT_CACHE) statements.delete(statements.keys().next().value!);
    }
    statements.set(sql, statement);
    return statement;
  };
}

/** The file a `sqlite:` DATABASE_URL names, resolved (undefined for MySQL/MariaDB and for `sqlite::memory:`). */
export function sqliteFileOf(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = url.slice('sqlite:'.length);
  return file === ':memory:' ? undefined : path.resolve(file);
}

function sqliteConfig(url: string): Knex.Config {
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return {
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    compileSqlOnError: false,
    pool: {
      min: 1,
      max: 1,
      idleTimeoutMillis: Number.MAX_SAFE_INTEGER,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        if (file !== ':memory:') conn.pragma('journal_mode = WAL');
        conn.function('case_fold', { deterministic: true }, caseFoldSql);
        cacheStatements(conn);
        done(null, conn);
      },
    },
  };
}

/** How long a MySQL/MariaDB statement may go unanswered before its connection is taken for dead. */
export const STATEMENT_TIMEOUT_MS = 10_000;

export interface DbOptions {
  poolMax?: number;
  /** MySQL/MariaDB: see guardStatements (default STATEMENT_TIMEOUT_MS; 0 for none, say for migrations). */
  statementTimeoutMs?: number;
  /** Knex's own warnings and errors (default: knex prints them on the console). */
  log?: Knex.Config['log'];
}

interface CallbackConnection {
  query(sql: string, callback: (error: Error | null, rows?: Array<Record<string, unknown>>) => void): void;
}

/**
 * On a Galera node (wsrep_on), a connection waits, before each read, until its node has applied
 * every write the cluster committed before it (wsrep_sync_wait = 1), unless the server already
 * sets a wait of its own: an order created through one instance is then found by the next request
 * on any other, as on one server. Elsewhere (plain MariaDB, MySQL) nothing is set.
 */
function causalReadsOnGalera(conn: CallbackConnection, done: (error: Error | null, conn: unknown) => void): void {
  conn.query('SELECT @@GLOBAL.wsrep_on AS wsrep_on, @@SESSION.wsrep_sync_wait AS sync_wait', (error, rows) => {
    const row = rows?.[0];
    if (error || !row || Number(row.wsrep_on) !== 1 || Number(row.sync_wait) !== 0) return done(null, conn);
    conn.query('SET SESSION wsrep_sync_wait = 1', (setError) => done(setError, conn));
  });
}

/**
 * With statements bounded (guardStatements), InnoDB is told to give up a lock wait well before the
 * bound (half of it, in whole seconds): a wait that long then ends in its 1205, which inTransaction
 * runs again, rather than in the bound's ETIMEDOUT (a 503, and the connection dropped while the
 * server still holds the transaction's locks).
 */
function lockWaitsWithin(timeoutMs: number): (conn: CallbackConnection, done: (error: Error | null, conn: unknown) => void) => void {
  const seconds = Math.max(1, Math.floor(timeoutMs / 2000));
  return (conn, done) => {
    if (timeoutMs <= 0) return causalReadsOnGalera(conn, done);
    conn.query(`SET SESSION innodb_lock_wait_timeout = ${seconds}`, (error) => (error ? done(error, conn) : causalReadsOnGalera(conn, done)));
  };
}

/**
 * The collation a MySQL/MariaDB pool's searches fold case through (text-fold.ts), asked of the
 * server once per pool (kept on its config, which its transactions share); undefined on SQLite.
 */
export function searchFoldCollation(db: Knex | Knex.Transaction): Promise<string | undefined> {
  const fold = (db.client.config as { textFold?: TextFold }).textFold;
  return fold ? foldCollation(db, fold) : Promise.resolve(undefined);
}

function mysqlConfig(url: string, poolMax: number, timeoutMs: number): Knex.Config & { textFold: TextFold } {
  const u = new URL(url);
  const textFold: TextFold = {};
  return {
    textFold,
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
    pool: { min: 0, max: poolMax, afterCreate: lockWaitsWithin(timeoutMs) },
    acquireConnectionTimeout: 10_000,
    // A failed statement's message starts with its SQL as written (placeholders), not with its values.
    compileSqlOnError: false,
  };
}

interface Mysql2Connection {
  stream: { destroy(error?: Error): void };
}

type Mysql2ClientClass = new (...args: never[]) => { _query(connection: Mysql2Connection, obj: unknown): Promise<unknown> };

/**
 * MySQL/MariaDB statements, each marked when it fails and bounded in time.
 *
 * Marked (markQueryError): knex writes the failed statement in front of the driver's message
 * (`<statement> - <message>`), and the logger cuts it off a driver error; mysql2's errors of a
 * broken link (the bound's ETIMEDOUT below, "connection is in closed state") have no errno to tell
 * them by, and were logged with the statement. Knex is also told not to write the values into it.
 *
 * Bounded: a network that drops packets (a black hole) leaves a statement waiting forever: mysql2
 * has no timeout once connected, and TCP gives up only after many minutes. So a statement unanswered
 * for `timeoutMs` (0: never) has its socket destroyed: it fails with ETIMEDOUT (a 503), knex drops
 * the connection from the pool, and the server rolls back whatever transaction was open on it.
 *
 * The client's class is extended, not the client object: knex makes each transaction's client from
 * the prototype of the client's constructor (makeTxClient), so a `_query` set on the object itself
 * bounded no statement inside a transaction (the client keeps its name, `mysql2`).
 */
function guardStatements(db: Knex, timeoutMs: number): Knex {
  const Mysql2Client = Object.getPrototypeOf(db.client).constructor as Mysql2ClientClass;
  class GuardedStatements extends Mysql2Client {
    _query(connection: Mysql2Connection, obj: unknown): Promise<unknown> {
      let query: Promise<unknown>;
      try {
        query = super._query(connection, obj);
      } catch (error) {
        // Refused before it was sent (an empty statement): no timer, which would otherwise destroy
        // the connection ten seconds later, back in the pool under another request.
        return Promise.reject(markQueryError(error));
      }
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              connection.stream.destroy(Object.assign(new Error(`The database did not answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
            }, timeoutMs)
          : undefined;
      return query.catch((error: unknown) => Promise.reject(markQueryError(error))).finally(() => clearTimeout(timer));
    }
  }
  Object.setPrototypeOf(db.client, GuardedStatements.prototype);
  return db;
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Knex {
  const sqlite = databaseUrl.startsWith('sqlite:');
  const timeoutMs = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const config = sqlite ? sqliteConfig(databaseUrl) : mysqlConfig(databaseUrl, options.poolMax ?? 10, timeoutMs);
  const db = knex(options.log ? { ...config, log: options.log } : config);
  if (sqlite) beginImmediate(db);
  return sqlite ? db : guardStatements(db, timeoutMs);
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
