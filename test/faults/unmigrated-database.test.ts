/**
 * A server, a worker or the CLI started on a database that was never migrated (GET /readyz says
 * so): requests answer 503 with Retry-After, not 500; the webhook worker's round fails and says so
 * once, not a warning a second; the CLI's failure says to migrate first.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createFanOut } from '../../src/components/webhooks/webhooks.fan-out.js';
import { nowDb } from '../../src/kernel/time.js';
import { api, unchecked } from '../helpers/api.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { buildApp, type Harness } from '../helpers/harness.js';
import { cliOn } from '../cli/cli-helpers.js';

describe('An unmigrated database', () => {
  let empty: TestDatabase;
  let h: Harness;

  before(async () => {
    empty = await createScratchDatabase();
    h = await buildApp({ deps: { db: empty.db } });
  });

  after(async () => {
    await empty?.close();
  });

  it('When a login comes, Then it answers 503 with Retry-After and the unavailable message (no table is the service not ready, not a bug of the request)', async () => {
    const login = await unchecked(h.app).post('/api/auth/token').send({ email: 'ops@demo.test', password: 'demo-password' });
    expect(login.status, login.text).to.equal(503);
    expect(login.headers['retry-after']).to.equal('30');
    expect(login.body).to.deep.equal({ message: 'The service is temporarily unavailable. Try again shortly.' });
    await api(h.app).get('/livez').expect(200);
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

  it('When an operator command reads it, Then it fails (exit 1) saying to run the migrate command first', async () => {
    const result = await cliOn(empty.db, ['list-companies']);
    expect(result.code).to.equal(1);
    expect(result.err).to.have.length(1);
    expect(result.err[0]).to.match(/^Failed: .*(companies).*\. The database is not migrated: run the migrate command first\.$/);
  });
});
