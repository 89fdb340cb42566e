/**
 * SQLite transactions take the write lock at BEGIN (BEGIN IMMEDIATE): a transaction that reads and
 * then writes while another process writes the same database waits its turn instead of failing with
 * SQLITE_BUSY (as a deferred BEGIN does when the other process commits between the read and the write).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createScratchDatabase, type TestDatabase } from '../../helpers/database.js';
import { createDb } from '../../../src/platform/db/database.js';
import { inTransaction } from '../../../src/platform/db/transaction.js';
import { testEnv } from '../../helpers/test-env.js';

/** Another process that inserts a row into `t` (waiting up to 5 s for the lock), printing `trying` first. */
function otherProcessInserts(file: string): { started: Promise<void>; done: Promise<number | null> } {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `
    const Database = require(${JSON.stringify(driver)});
    const db = new Database(${JSON.stringify(file)});
    db.pragma('busy_timeout = 5000');
    process.stdout.write('trying\\n');
    db.prepare('insert into t (n) values (2)').run();
    db.close();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const started = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { started, done };
}

// SQLite only: MariaDB's transactions wait for row locks.
if (testEnv.engine === 'sqlite') describe('SQLite transactions across processes', function () {
  let scratch: TestDatabase;
  afterEach(async () => scratch?.close());

  it('When another process writes between a transaction\'s read and its write, Then both writes succeed, one after the other', async () => {
    scratch = await createScratchDatabase({ file: true });
    await scratch.db.schema.createTable('t', (t) => {
      t.increments('id');
      t.integer('n');
    });
    const file = scratch.url.slice('sqlite:'.length);
    const db = createDb(scratch.url);
    try {
      let other: ReturnType<typeof otherProcessInserts> | undefined;
      await inTransaction(db, async (tx) => {
        await tx('t').select('id');
        other = otherProcessInserts(file);
        await other.started;
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx('t').insert({ n: 1 });
      });
      expect(await other!.done).to.equal(0);
      expect((await db('t').select('n').orderBy('id')).map((r: { n: number }) => r.n)).to.deep.equal([1, 2]);
    } finally {
      await db.destroy();
    }
  });
});
