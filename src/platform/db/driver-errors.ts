/** Driver differences in one place: which error of SQLite or MySQL/MariaDB means what. */

interface DriverError {
  code?: string;
  errno?: number;
}

/** The driver's own message of an error a statement met, kept before knex writes the statement in front of it. */
const DRIVER_MESSAGE = Symbol('the driver message of a failed statement');

/**
 * Keeps the driver's own message of `error`, which a statement met (database.ts), before knex
 * writes the statement in front of it (`<statement> - <message>`): what the logger shows instead of
 * the message. Answers the error.
 */
export function markQueryError(error: unknown): unknown {
  if (typeof error === 'object' && error !== null && !(DRIVER_MESSAGE in error)) {
    const message = (error as { message?: unknown }).message;
    Object.defineProperty(error, DRIVER_MESSAGE, { value: typeof message === 'string' ? message : String(error) });
  }
  return error;
}

/** The driver's message markQueryError kept, or undefined for an error it did not mark. */
export function driverMessageOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { [DRIVER_MESSAGE]?: string })[DRIVER_MESSAGE] : undefined;
}

function asDriverError(error: unknown): DriverError {
  return typeof error === 'object' && error !== null ? (error as DriverError) : {};
}

export function isUniqueViolation(error: unknown): boolean {
  const e = asDriverError(error);
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.errno === 1062;
}

/** A unique violation of the primary key (an id that is taken). */
export function isPrimaryKeyViolation(error: unknown): boolean {
  const e = asDriverError(error);
  const message = (error as { message?: string } | null)?.message ?? '';
  return e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || (e.errno === 1062 && /for key '([\w]+\.)?PRIMARY'/.test(message));
}

export function isForeignKeyViolation(error: unknown): boolean {
  const e = asDriverError(error);
  return e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || e.errno === 1451 || e.errno === 1452;
}

/**
 * A transaction MySQL/MariaDB rolled back whole, so that running it again is safe: a deadlock
 * victim (1213), a lock wait timeout (1205), or a COMMIT that failed (1180, ER_ERROR_DURING_COMMIT).
 * On a Galera cluster a transaction that loses a certification conflict to a write committed on
 * another node fails with 1213 too, at any statement or at COMMIT (which knex's transaction
 * rejects with), and is retried the same way.
 */
export function isRetryableTransactionError(error: unknown): boolean {
  const e = asDriverError(error);
  return (
    e.errno === 1213 ||
    e.errno === 1205 ||
    e.errno === 1180 ||
    e.code === 'ER_LOCK_DEADLOCK' ||
    e.code === 'ER_LOCK_WAIT_TIMEOUT' ||
    e.code === 'ER_ERROR_DURING_COMMIT'
  );
}

/** InnoDB gave up waiting for a row lock another transaction holds (1205; the wait is bounded by database.ts). */
export function isLockWaitTimeout(error: unknown): boolean {
  const e = asDriverError(error);
  return e.errno === 1205 || e.code === 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * A Galera node that is not part of the primary component, or not synced yet, refuses every
 * statement with 1047 (ER_UNKNOWN_COM_ERROR, "WSREP has not yet prepared node for application
 * use"): for the instances on it, the database is unavailable until the node rejoins.
 */
function isGaleraNodeNotReady(e: DriverError, message: string): boolean {
  return e.errno === 1047 && /WSREP/i.test(message);
}

/**
 * SQLite's forms of a database that went away: better-sqlite3 on a closed connection, and knex
 * once its pool is destroyed. Neither has a code of its own.
 */
const SQLITE_GONE = /The database connection is not open|Unable to acquire a connection/;

/**
 * The database is unreachable, went away or did not answer in time (not a query error). mysql2
 * marks every error that killed its connection `fatal`, including the one a transaction's ROLLBACK
 * meets on a connection that died under it; SQLite's busy timeout is its form of a database that
 * does not answer writes; a Galera node outside the primary component answers nothing but 1047.
 */
export function isConnectionError(error: unknown): boolean {
  const e = asDriverError(error) as DriverError & { fatal?: boolean };
  const name = (error as { name?: string } | null)?.name;
  const message = (error as { message?: string } | null)?.message ?? '';
  return (
    name === 'KnexTimeoutError' ||
    e.fatal === true ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR'].includes(e.code ?? '') ||
    (e.code ?? '').startsWith('SQLITE_BUSY') ||
    e.errno === 2002 ||
    e.errno === 2013 ||
    e.errno === 2006 ||
    isGaleraNodeNotReady(e, message) ||
    SQLITE_GONE.test(message)
  );
}

/**
 * SQLite's refusal to roll back what it has already rolled back itself: after a disk full, an I/O
 * error or a lack of memory it ends the transaction on its own, and knex's ROLLBACK (or ROLLBACK TO
 * a savepoint) then fails, its error taking the place of the one that ended the transaction.
 */
export function isRollbackOfEndedTransaction(error: unknown): boolean {
  const message = (error as { message?: string } | null)?.message ?? '';
  return (asDriverError(error).code ?? '').startsWith('SQLITE_ERROR') && /cannot rollback - no transaction is active|no such savepoint/.test(message);
}

/** SQLite's result codes (and their extended forms, `SQLITE_IOERR_WRITE`) of files it cannot write or read. */
const SQLITE_STORAGE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)(_|$)/;

/**
 * MySQL/MariaDB's errors of storage: disk full (1021), a table full (1114, the disk under it), an
 * error writing a file (3), and a server in read-only mode (1290 --read-only, 1836).
 */
const MYSQL_STORAGE = new Set([3, 1021, 1114, 1290, 1836]);

/**
 * The database cannot write or read its files: a disk full, a volume that failed or went
 * read-only. Not a fault of the request, and gone once an operator has fixed it: the client is
 * told to retry (a 503), as for a database that does not answer, never a 500.
 */
export function isStorageError(error: unknown): boolean {
  const e = asDriverError(error);
  return SQLITE_STORAGE.test(e.code ?? '') || (e.errno !== undefined && MYSQL_STORAGE.has(e.errno));
}

/**
 * A table the statement names does not exist (MySQL/MariaDB 1146 ER_NO_SUCH_TABLE, SQLite "no such
 * table"): most often a database never migrated. Requests still answer 500 (on a migrated database
 * it is a bug); the webhook fan-out fails its round as a whole, and the CLI says to migrate.
 */
export function isSchemaMissing(error: unknown): boolean {
  const e = asDriverError(error);
  const message = (error as { message?: string } | null)?.message ?? '';
  return e.errno === 1146 || ((e.code ?? '').startsWith('SQLITE_ERROR') && /no such table: /.test(message));
}

/**
 * A table or a column the statement names does not exist (1146, 1054 ER_BAD_FIELD_ERROR, SQLite's
 * "no such table/column" and, of an INSERT, "table … has no column named …"): the schema is not the one the code was written for.
 */
export function isSchemaMismatch(error: unknown): boolean {
  const e = asDriverError(error);
  const message = (error as { message?: string } | null)?.message ?? '';
  return isSchemaMissing(error) || e.errno === 1054 || ((e.code ?? '').startsWith('SQLITE_ERROR') && /no such column: |has no column named /.test(message));
}

/** Set on a statement's error that met a schema which lacks migrations of this version (components/health/schema-watch.ts). */
const SCHEMA_BEHIND = Symbol('met a schema that lacks migrations of this version');

export function markSchemaBehind(error: unknown): void {
  if (typeof error === 'object' && error !== null && !(SCHEMA_BEHIND in error)) Object.defineProperty(error, SCHEMA_BEHIND, { value: true });
}

/** Whether `error` met a schema that lacks migrations of this version: the release's migrate has not run yet. */
export function isSchemaBehind(error: unknown): boolean {
  return typeof error === 'object' && error !== null && SCHEMA_BEHIND in error;
}
