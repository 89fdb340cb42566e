/** inTransaction, on a real database of the run's engine: retries of a deadlock victim, and joining a caller's transaction. */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createScratchDatabase, type TestDatabase } from '../../helpers/database.js';
import { inTransaction } from '../../../src/platform/db/transaction.js';

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
});
