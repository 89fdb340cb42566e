/**
 * The logger's error serializer (src/platform/logger.ts) on the shapes of driver errors: knex's
 * `<statement> - <message>`, mysql2's `sql`/`sqlMessage`, an error as GraphQL wraps it, a cause.
 */
import { expect } from 'chai';
import { GraphQLError } from 'graphql';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../../../src/platform/db/database.js';
import { createLogger, errorSerializer, knexLog } from '../../../src/platform/logger.js';

const STATEMENT = "insert into `webhook_deliveries` (`payload`) values ('{\"secret-payload\":1}')";

/** An error as knex hands a mysql2 query error on: the statement in front of the message, and `sql`. */
function mysqlError(): Error {
  const error = Object.assign(new Error("Data too long for column 'payload' at row 1"), {
    code: 'ER_DATA_TOO_LONG',
    errno: 1406,
    sqlState: '22001',
    sqlMessage: "Data too long for column 'payload' at row 1",
    sql: STATEMENT,
  });
  error.message = `${STATEMENT} - ${error.message}`;
  return error;
}

/** An error as knex hands a better-sqlite3 one on: the statement in front of the message. */
function sqliteError(): Error {
  const error = Object.assign(new Error('placeholder'), { code: 'SQLITE_ERROR' });
  error.name = 'SqliteError';
  error.message = `${STATEMENT} - too many terms in compound SELECT`;
  return error;
}

describe('Logger: the error serializer', () => {
  it('When a mysql2 error carries its statement, Then the serialized error keeps code, errno, SQL state and the driver\'s message, and drops sql and sqlMessage', () => {
    const out = errorSerializer(mysqlError()) as Record<string, unknown>;
    expect(out).to.include({ code: 'ER_DATA_TOO_LONG', errno: 1406, sqlState: '22001', message: "Data too long for column 'payload' at row 1" });
    expect(out).to.not.have.any.keys('sql', 'sqlMessage', 'raw');
    expect(JSON.stringify(out)).to.not.include('secret-payload');
  });

  it('When a SQLite error\'s message starts with the statement, Then only the driver\'s message is kept, in the message and the stack', () => {
    const out = errorSerializer(sqliteError()) as Record<string, string>;
    expect(out.message).to.equal('too many terms in compound SELECT');
    expect(out.stack!.split('\n')[0]).to.equal('Error: too many terms in compound SELECT');
    expect(out.stack).to.match(/\n {4}at /);
    expect(JSON.stringify(out)).to.not.include('secret-payload');
  });

  it('When GraphQL wraps a driver error, or an error has one as its cause, Then neither message carries the statement', () => {
    const original = sqliteError();
    const located = new GraphQLError(original.message, { originalError: original });
    const wrapped = new Error('webhook fan-out failed', { cause: mysqlError() });
    for (const error of [located, wrapped]) expect(JSON.stringify(errorSerializer(error))).to.not.include('secret-payload');
    expect((errorSerializer(located) as { message: string }).message).to.equal('too many terms in compound SELECT');
    expect((errorSerializer(wrapped) as { message: string }).message).to.equal("webhook fan-out failed: Data too long for column 'payload' at row 1");
  });

  it('When an ordinary error is logged, Then its message and own properties stay as they were', () => {
    const error = Object.assign(new Error('Redis did not answer - giving up'), { code: 'ETIMEDOUT', attempt: 3 });
    expect(errorSerializer(error)).to.include({ message: 'Redis did not answer - giving up', code: 'ETIMEDOUT', attempt: 3, type: 'Error' });
  });

  it('When the process logger logs an error as err, error or a library\'s args, Then every line is free of the statement', () => {
    const lines: string[] = [];
    const logger = createLogger({ logLevel: 'info', appName: 'test' }, { write: (line: string) => void lines.push(line) });
    logger.error({ err: mysqlError() }, 'as err');
    logger.error({ error: sqliteError() }, 'as error');
    logger.error({ args: [sqliteError(), 'context'] }, 'as args');
    expect(lines).to.have.length(3);
    for (const line of lines) expect(line).to.not.include('secret-payload');
    expect(JSON.parse(lines[2]!).args[1]).to.equal('context');
  });

  it('When knex cannot open the database (a directory given as the SQLite file), Then what it says is a JSON line of the process logger at debug (one per query tried during an outage), not console text', async () => {
    const lines: string[] = [];
    const logger = createLogger({ logLevel: 'debug', appName: 'test' }, { write: (line: string) => void lines.push(line) });
    const db = createDb(`sqlite:${mkdtempSync(join(tmpdir(), 'tpl-knex-log-'))}`, { log: knexLog(logger) });
    try {
      const failure = await db.raw('select 1').then(() => undefined, (error: unknown) => error);
      expect(String(failure)).to.match(/unable to open database file/);
    } finally {
      await db.destroy();
    }
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; source?: string; msg: string });
    expect(warnings.length).to.be.at.least(1);
    expect(warnings[0]).to.include({ level: 20, source: 'knex' });
    expect(warnings[0]!.msg).to.match(/^Acquire connection error: SqliteError: unable to open database file/);
  });

  it('When knex says a savepoint is gone ("do not mix transactions and DDL"), Then it is a debug line: a deadlock took the transaction, no DDL ran', () => {
    const lines: string[] = [];
    const logger = createLogger({ logLevel: 'info', appName: 'test' }, { write: (line: string) => void lines.push(line) });
    const log = knexLog(logger);
    log.warn!('Transaction was implicitly committed, do not mix transactions and DDL with MySQL (#805)');
    log.warn!('Something else knex warns about');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).to.deep.equal(['Something else knex warns about']);
  });
});
