/**
 * A worker or the CLI started on a database that was never migrated (GET /readyz says so): the
 * webhook worker's round fails and says so once, not a warning a second; the CLI's failure says to
 * migrate when a table is missing.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createFanOut } from '../../src/components/webhooks/webhooks.fan-out.js';
import { nowDb } from '../../src/kernel/time.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { cliOn } from '../cli/cli-helpers.js';

describe('An unmigrated database', () => {
  let empty: TestDatabase;

  before(async () => {
    empty = await createScratchDatabase();
  });

  after(async () => {
    await empty?.close();
  });

  it('When the webhook fan-out runs, Then its round fails with the database error and logs no warning of its own (the worker says so once)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const fanOut = createFanOut({ db: empty.db, logger, now: () => nowDb() });
    for (let round = 0; round < 3; round++) {
      const failure = await fanOut().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, `round ${round}`).to.be.instanceOf(Error);
    }
    expect(lines.filter((line) => line.includes('fan-out batch failed'))).to.deep.equal([]);
  });

  it('When an operator command reads it, Then it fails (exit 1) saying a table is missing and to migrate a database never migrated', async () => {
    const result = await cliOn(empty.db, ['list-companies']);
    expect(result.code).to.equal(1);
    expect(result.err).to.have.length(1);
    expect(result.err[0]).to.match(/^Failed: .*companies.* \(a table is missing: if the database was never migrated, run the migrate command\)\.$/);
  });
});
