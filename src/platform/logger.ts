/**
 * The process logger (pino): JSON lines on stdout, credentials redacted, and errors logged without
 * the data they were about. Knex puts the failed statement, with every bound value, in front of
 * the driver's message (`insert into … values (…) - too many terms in compound SELECT`) and mysql2
 * adds `sql`; a logged database error keeps its type, code, errno, SQL state, the driver's own
 * message and the stack frames, never the statement, its values or a payload in them.
 */
import { pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { driverMessageOf } from './db/driver-errors.js';

/** Properties of a driver error that carry the statement or its values. */
const STATEMENT_KEYS = ['sql', 'sqlMessage', 'bindings', 'parameters', 'values', 'query'];

interface ErrorLike {
  name?: string;
  message: string;
  stack?: string;
  code?: unknown;
  errno?: unknown;
  sqlMessage?: unknown;
  originalError?: unknown;
  cause?: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return value instanceof Error || (typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string' && 'stack' in value);
}

/** A driver error: better-sqlite3's codes are SQLITE_*, mysql2's carry an errno or the statement. */
function isDriverError(error: ErrorLike): boolean {
  return (
    (typeof error.code === 'string' && /^(SQLITE_|ER_)/.test(error.code)) ||
    typeof error.errno === 'number' ||
    typeof error.sqlMessage === 'string' ||
    'sql' in error ||
    'bindings' in error
  );
}

/**
 * The driver's message without the statement knex wrote in front of it (`<statement> - <message>`):
 * as database.ts kept it on MySQL/MariaDB (errors of a broken link have no errno or sqlMessage to
 * tell them by: the statement bound's ETIMEDOUT, "connection is in closed state"), else cut there.
 */
function driverMessage(error: ErrorLike): string {
  const kept = driverMessageOf(error);
  if (kept !== undefined) return kept;
  if (typeof error.sqlMessage === 'string') return error.sqlMessage;
  if (!isDriverError(error)) return error.message;
  const cut = error.message.lastIndexOf(' - ');
  return cut === -1 ? error.message : error.message.slice(cut + 3);
}

/** The stack's frames under a first line that repeats the safe message (V8 wrote the first line from the message as it was). */
function safeStack(stack: string | undefined, header: string): string | undefined {
  if (stack === undefined) return undefined;
  const frames = stack.indexOf('\n    at ');
  return frames === -1 ? header : header + stack.slice(frames);
}

function safeMessage(error: ErrorLike): string {
  // A GraphQL error located around a resolver's failure repeats the original message.
  const original = error.originalError;
  if (isErrorLike(original) && error.message === original.message) return driverMessage(original);
  return driverMessage(error);
}

/**
 * pino's error serializer, without the failed statement and its values: the message is the
 * driver's own, `sql`, `sqlMessage` and bindings are dropped, and causes and GraphQL's
 * `originalError` are cleaned the same way.
 */
export function errorSerializer(value: unknown): unknown {
  if (!isErrorLike(value)) return value;
  const message = safeMessage(value);
  const serialized = stdSerializers.err(value as Error) as unknown as Record<string, unknown>;
  const type = typeof serialized.type === 'string' ? serialized.type : (value.name ?? 'Error');
  const cause = isErrorLike(value.cause) ? (errorSerializer(value.cause) as { message: string }) : undefined;
  const cleaned: Record<string, unknown> = {
    ...serialized,
    message: cause ? `${message}: ${cause.message}` : message,
    stack: safeStack(value.stack, `${type}: ${message}`),
  };
  for (const key of STATEMENT_KEYS) delete cleaned[key];
  if (cause) cleaned.cause = cause;
  if (isErrorLike(value.originalError)) cleaned.originalError = errorSerializer(value.originalError);
  if (Array.isArray(serialized.aggregateErrors)) cleaned.aggregateErrors = (value as unknown as { errors: unknown[] }).errors.map(errorSerializer);
  delete cleaned.raw;
  return cleaned;
}

/** Arguments passed on from a library's logger (graphql-yoga logs its errors as `args`). */
function argsSerializer(value: unknown): unknown {
  return Array.isArray(value) ? value.map(errorSerializer) : errorSerializer(value);
}

export function loggerOptions(config: Pick<Config, 'logLevel' | 'appName'>): LoggerOptions {
  return {
    name: config.appName,
    level: config.logLevel,
    // `"time":"2026-11-21T10:00:00.000Z"`: readable, and what log stores parse without a hint.
    timestamp: stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'password', '*.password', 'secret', '*.secret'],
    serializers: { err: errorSerializer, error: errorSerializer, args: argsSerializer },
  };
}

/** The logger of a process; `destination` (stdout when absent) lets tests read the lines. */
export function createLogger(config: Pick<Config, 'logLevel' | 'appName'>, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(config), destination) : pino(loggerOptions(config));
}

/**
 * What knex says when a savepoint is gone (MySQL errno 1305). The service runs no DDL in a
 * transaction: the savepoint went with a deadlock, which rolled the whole transaction back under a
 * bulk item's savepoint, and the deadlock is answered as such (a 503 with Retry-After). At warn it
 * sent operators looking for DDL; it stays at debug.
 */
const SAVEPOINT_GONE = /^Transaction was implicitly committed, do not mix transactions and DDL/;

/**
 * Knex's line for each connection it could not open: while the database is down, one for every
 * query tried, a few a second; the outage is answered (503, readiness) and logged once by the
 * loops that meet it (repeated-failure.ts), so these stay at debug.
 */
const ACQUIRE_FAILED = /^Acquire connection error/;

/**
 * Knex's own warnings, errors and deprecations (a connection it could not open, with the driver's
 * stack) as lines of the process logger: knex writes them on the console otherwise, plain text
 * among the JSON lines, which a log collector cannot read.
 */
export function knexLog(logger: Logger): NonNullable<Knex.Config['log']> {
  const line = (level: 'warn' | 'error') => (message: unknown) => {
    const text = String(message);
    const routine = level === 'warn' && (SAVEPOINT_GONE.test(text) || ACQUIRE_FAILED.test(text));
    logger[routine ? 'debug' : level]({ source: 'knex' }, text);
  };
  return { warn: line('warn'), error: line('error'), deprecate: line('warn'), debug: () => undefined };
}

/**
 * The last line of a process that cannot start (a bad configuration, a failed migration): one JSON
 * line at fatal on stderr, written before the process exits, like every other line of the process
 * (no plain text among the JSON lines) and with the reason readable in `msg`.
 */
export function logStartupFailure(message: string, error?: unknown, destination: DestinationStream = pino.destination({ fd: 2, sync: true })): void {
  const logger = pino({ ...loggerOptions({ logLevel: 'info', appName: 'tpl-integration-api' }), name: undefined }, destination);
  if (error === undefined) logger.fatal(message);
  else logger.fatal({ err: error }, message);
}
