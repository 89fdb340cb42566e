/** inTransaction, on a real database of the run's engine: retries of a deadlock victim, and joining a caller's transaction. */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createScratchDatabase, type TestDatabase } from '../../helpers/database.js';
import { createDb } from '../../../src/platform/db/database.js';
import { testEnv } from '../../helpers/test-env.js';
import { ATTEMPTS, inSavepoint, inTransaction, LOCK_WAIT_ATTEMPTS, retryPauseMs, timeOfWrite, writeAtCommit, type CommitWriter } from '../../../src/platform/db/transaction.js';
import { databaseFaultOf } from '../../../src/platform/error-status.js';
import { isConnectionError, isRetryableTransactionError } from '../../../src/platform/db/driver-errors.js';

const deadlock = (): Error => Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });

describe('inTransaction', () => {
  let database: TestDatabase;
  let db: Knex;

  before(async () => {
    database = await createScratchDatabase();
    db = database.db;
    await db.schema.createTable('tx_probe', (t) => {
      t.increments('id');
      t.string('label', 40).notNullable();
    });
  });

  after(() => database.close());

  beforeEach(() => db('tx_probe').delete());

  const labels = async (): Promise<string[]> => (await db('tx_probe').select('label').orderBy('id')).map((r) => r.label as string);

  it('When the work is a deadlock victim once, Then it is run again in a new transaction and only the second run is kept', async () => {
    let runs = 0;
    const result = await inTransaction(db, async (tx) => {
      runs++;
      await tx('tx_probe').insert({ label: `run ${runs}` });
      if (runs === 1) throw deadlock();
      return 'done';
    });
    expect(result).to.equal('done');
    expect(runs).to.equal(2);
    expect(await labels()).to.deep.equal(['run 2']);
  });

  it('When given a transaction, Then the work joins it: no transaction of its own, no retry, and the caller decides', async () => {
    let inner = 0;
    let outer = 0;
    await inTransaction(db, async (tx) => {
      outer++;
      await tx('tx_probe').insert({ label: `outer ${outer}` });
      await inTransaction(tx, async (joined) => {
        inner++;
        expect(joined).to.equal(tx);
        await joined('tx_probe').insert({ label: `inner ${inner}` });
        if (outer === 1) throw deadlock();
      });
    });
    // The inner failure rolled back the whole (the outer writes too) and the outer retried it once.
    expect([outer, inner]).to.deep.equal([2, 2]);
    expect(await labels()).to.deep.equal(['outer 2', 'inner 2']);
  });

  it('When the joined work fails, Then nothing of the caller\'s transaction is kept', async () => {
    const failure = new Error('the line 2 article is unknown');
    const attempt = inTransaction(db, async (tx) => {
      await tx('tx_probe').insert({ label: 'header' });
      await inTransaction(tx, async (joined) => {
        await joined('tx_probe').insert({ label: 'line 1' });
        throw failure;
      });
    });
    await attempt.then(
      () => expect.fail('the transaction should have failed'),
      (error: unknown) => expect(error).to.equal(failure),
    );
    expect(await labels()).to.deep.equal([]);
  });

  /** A writer of labels at the end, recording each call's rows and instant. */
  const labelsAtCommit = (): CommitWriter<string> & { calls: Array<[string[], string]> } => {
    const calls: Array<[string[], string]> = [];
    return {
      calls,
      async write(tx, rows, at) {
        calls.push([[...rows], at]);
        await tx('tx_probe').insert(rows.map((label) => ({ label: `${label} at end` })));
      },
    };
  };

  it('When work leaves rows to write at commit, Then they are written after the work, in one call at one instant, and a failed savepoint\'s rows go with it', async () => {
    const writer = labelsAtCommit();
    const failure = new Error('item 2 is refused');
    await inTransaction(db, async (tx) => {
      await writeAtCommit(tx, writer, 'header');
      await inSavepoint(tx, (item) => writeAtCommit(item, writer, 'item 1'));
      await inSavepoint(tx, async (item) => {
        await writeAtCommit(item, writer, 'item 2');
        await inSavepoint(item, (nested) => writeAtCommit(nested, writer, 'item 2 nested'));
        throw failure;
      }).catch((error: unknown) => expect(error).to.equal(failure));
      await inSavepoint(tx, async (item) => {
        await inSavepoint(item, (nested) => writeAtCommit(nested, writer, 'item 3 nested'));
      });
      await tx('tx_probe').insert({ label: 'work' });
      expect(writer.calls, 'nothing written before the work is done').to.deep.equal([]);
    });
    expect(writer.calls.map(([rows]) => rows)).to.deep.equal([['header', 'item 1', 'item 3 nested']]);
    expect(writer.calls[0]![1]).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    expect(await labels()).to.deep.equal(['work', 'header at end', 'item 1 at end', 'item 3 nested at end']);
  });

  it('When a row is left with a merge, Then it merges into the last row left under its key, never into one left before the savepoint it runs in', async () => {
    const writer = labelsAtCommit();
    /** Rows `key:label`: a row merges into the last of its key unless that one is marked "keep". */
    const under = (key: string, label: string) => ({ key, into: (before: string): string | undefined => (before.includes('keep') ? undefined : `${before}+${label}`) });
    await inTransaction(db, async (tx) => {
      await writeAtCommit(tx, writer, 'a:1', under('a', '1'));
      await writeAtCommit(tx, writer, 'b:1', under('b', '1'));
      await writeAtCommit(tx, writer, 'a:2', under('a', '2'));
      await inSavepoint(tx, async (item) => {
        await writeAtCommit(item, writer, 'a:3', under('a', '3'));
        await writeAtCommit(item, writer, 'a:4', under('a', '4'));
      });
      await inSavepoint(tx, async (item) => {
        await writeAtCommit(item, writer, 'c:1', under('c', '1'));
        throw new Error('refused');
      }).catch(() => undefined);
      await writeAtCommit(tx, writer, 'c:2', under('c', '2'));
      await writeAtCommit(tx, writer, 'b:keep', under('b', 'keep'));
      await writeAtCommit(tx, writer, 'b:3', under('b', '3'));
      await writeAtCommit(tx, writer, 'plain');
    });
    // a:2 merged into a:1 past b:1; a:3 is the savepoint's first row under a (never merged into a:1+2), and a:4 merged into it;
    // c:1 went with its savepoint; b:keep merged into b:1 and b:3 is refused by b:1+keep.
    expect(writer.calls.map(([rows]) => rows)).to.deep.equal([['a:1+2', 'b:1+keep', 'a:3+4', 'c:2', 'b:3', 'plain']]);
  });

  it('When a transaction stamps rows as it goes, Then timeOfWrite is one reading for it and its savepoints; another transaction reads again', async () => {
    const first = await inTransaction(db, async (tx) => {
      const time = timeOfWrite(tx);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(timeOfWrite(tx)).to.equal(time);
      expect(await inSavepoint(tx, async (item) => timeOfWrite(item))).to.equal(time);
      return time;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await inTransaction(db, async (tx) => timeOfWrite(tx))) > first, "a later transaction reads later").to.equal(true);
    expect(timeOfWrite(db) > first, "outside a transaction: now").to.equal(true);
  });

  it('When a transaction with rows to write at commit is a deadlock victim, Then only the last run\'s rows are written; outside inTransaction they are written at once', async () => {
    const writer = labelsAtCommit();
    let runs = 0;
    await inTransaction(db, async (tx) => {
      runs++;
      await writeAtCommit(tx, writer, `run ${runs}`);
      if (runs === 1) throw deadlock();
    });
    expect(writer.calls.map(([rows]) => rows)).to.deep.equal([['run 2']]);
    await db.transaction(async (tx) => {
      await writeAtCommit(tx, writer, 'script');
      expect(writer.calls.map(([rows]) => rows)).to.deep.equal([['run 2'], ['script']]);
    });
  });

  it('When COMMIT itself fails as a certification conflict (1213 at commit, as Galera answers), Then the whole transaction is run again', async () => {
    let runs = 0;
    const commits: number[] = [];
    // knex sends COMMIT through the transaction's client: the first COMMIT answers as a Galera
    // node whose writeset lost certification to another node's (the server rolled it back).
    const result = await inTransaction(db, async (tx) => {
      runs++;
      await tx('tx_probe').insert({ label: `run ${runs}` });
      const client = (tx as unknown as { client: { query(conn: unknown, sql: unknown): Promise<unknown> } }).client;
      const query = client.query.bind(client);
      client.query = async (conn, sql) => {
        const text = typeof sql === 'string' ? sql : (sql as { sql?: string }).sql ?? '';
        if (/^COMMIT/i.test(text)) {
          commits.push(runs);
          if (runs === 1) {
            await query(conn, 'ROLLBACK;');
            throw Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });
          }
        }
        return query(conn, sql);
      };
      return 'done';
    });
    expect(result).to.equal('done');
    expect({ runs, commits }).to.deep.equal({ runs: 2, commits: [1, 2] });
    expect(await labels()).to.deep.equal(['run 2']);
  });

  it('When a row lock is held longer than the statement bound (MySQL/MariaDB), Then the waiting work ends in a lock wait timeout and runs again until the lock is free, never a dropped connection', async function () {
    this.timeout(20_000);
    const [probe] = await db('tx_probe').insert({ label: 'locked' }).returning('id');
    const id = typeof probe === 'object' ? (probe as { id: number }).id : Number(probe);
    if (testEnv.engine !== 'mysql') {
      // SQLite runs one writing transaction at a time and waits its busy timeout: no row locks, no bound.
      await inTransaction(db, (tx) => tx('tx_probe').where({ id }).update({ label: 'changed' }));
      expect(await labels()).to.deep.equal(['changed']);
      return;
    }
    // A bound of 2 s: InnoDB gives a lock wait up after 1 s (half of it), before the bound would drop the connection.
    const bounded = createDb(database.url, { statementTimeoutMs: 2000 });
    const holder = await db.transaction();
    try {
      await holder('tx_probe').where({ id }).update({ label: 'held' });
      // Free after two lock waits of 1 s: the third run (the last LOCK_WAIT_ATTEMPTS allows) gets it.
      const released = new Promise<void>((resolve) => setTimeout(() => void holder.commit().then(() => resolve()), 2500));
      let runs = 0;
      await inTransaction(bounded, async (tx) => {
        runs++;
        await tx('tx_probe').where({ id }).update({ label: 'changed' });
      });
      await released;
      expect(runs, 'runs: each lock wait timeout ran it again').to.be.above(1);
      expect(await labels()).to.deep.equal(['changed']);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
      await bounded.destroy();
    }
  });

  it('When a row lock is held for long (MySQL/MariaDB), Then the work gives up after LOCK_WAIT_ATTEMPTS lock waits, a 503 that says another change holds the records; SQLite waits its busy timeout', async function () {
    this.timeout(20_000);
    const [probe] = await db('tx_probe').insert({ label: 'locked' }).returning('id');
    const id = typeof probe === 'object' ? (probe as { id: number }).id : Number(probe);
    if (testEnv.engine !== 'mysql') {
      expect(databaseFaultOf(Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), { errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' }))).to.deep.equal({
        message: 'Another change has held records this one needs for several seconds; nothing was changed. Try again shortly.',
        retryAfterSeconds: 5,
      });
      return;
    }
    const bounded = createDb(database.url, { statementTimeoutMs: 2000 });
    const holder = await db.transaction();
    try {
      await holder('tx_probe').where({ id }).update({ label: 'held' });
      let runs = 0;
      const started = Date.now();
      const failure = await inTransaction(bounded, async (tx) => {
        runs++;
        await tx('tx_probe').where({ id }).update({ label: 'changed' });
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(runs).to.equal(LOCK_WAIT_ATTEMPTS);
      expect(Date.now() - started, 'three waits of 1 s, not ten').to.be.below(6000);
      expect(databaseFaultOf(failure)).to.deep.equal({
        message: 'Another change has held records this one needs for several seconds; nothing was changed. Try again shortly.',
        retryAfterSeconds: 5,
      });
    } finally {
      await holder.rollback();
      await bounded.destroy();
    }
  });

  it('When the work is a victim every time, Then it gives up after ATTEMPTS runs with the deadlock error', async function () {
    this.timeout(20_000);
    let runs = 0;
    const attempt = inTransaction(db, async () => {
      runs++;
      throw deadlock();
    });
    await attempt.then(() => expect.fail('should have failed'), (error: unknown) => expect(isRetryableTransactionError(error)).to.equal(true));
    expect(runs).to.equal(ATTEMPTS);
  });
});

describe('Retryable and connection errors (MariaDB and Galera)', () => {
  const error = (errno: number, code: string, message: string) => Object.assign(new Error(message), { errno, code });

  it('When MariaDB or Galera rolled a transaction back whole (deadlock, lock wait, certification conflict, failed COMMIT), Then it is retryable', () => {
    expect(isRetryableTransactionError(error(1213, 'ER_LOCK_DEADLOCK', 'Deadlock found when trying to get lock; try restarting transaction'))).to.equal(true);
    expect(isRetryableTransactionError(error(1205, 'ER_LOCK_WAIT_TIMEOUT', 'Lock wait timeout exceeded; try restarting transaction'))).to.equal(true);
    expect(isRetryableTransactionError(error(1180, 'ER_ERROR_DURING_COMMIT', 'Got error 6 "No such device or address" during COMMIT'))).to.equal(true);
    expect(isRetryableTransactionError(error(1062, 'ER_DUP_ENTRY', "Duplicate entry '1' for key 'PRIMARY'"))).to.equal(false);
  });

  it('When a Galera node is outside the primary component (1047 WSREP not ready), Then it is a connection error (503), not a retry on the same node', () => {
    const notReady = error(1047, 'ER_UNKNOWN_COM_ERROR', 'WSREP has not yet prepared node for application use');
    expect(isConnectionError(notReady)).to.equal(true);
    expect(isRetryableTransactionError(notReady)).to.equal(false);
    expect(isConnectionError(error(1047, 'ER_UNKNOWN_COM_ERROR', 'Unknown command'))).to.equal(false);
  });

  it('When the pauses between attempts are drawn, Then they double from 10 ms and stop growing at 500 ms', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => retryPauseMs(n, 1))).to.deep.equal([10, 20, 40, 80, 160, 320, 500, 500, 500]);
    expect(retryPauseMs(3, 0.5)).to.equal(20);
  });
});
