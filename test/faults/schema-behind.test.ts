/**
 * An instance started before its release's migrate ran: while the database lacks migrations of
 * this version, a request that meets a missing table or column answers 503 with Retry-After
 * ("being upgraded"), not 500; once migrate has run, it is served. Without pending migrations the
 * same failure is a bug of ours: 500.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { migrateLatest } from '../../db/migrations/index.js';
import { watchSchema } from '../../src/components/health/schema-watch.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { buildApp } from '../helpers/harness.js';
import { api, unchecked } from '../helpers/api.js';
import { until } from '../helpers/net.js';

describe('An instance whose database lacks migrations of its version', () => {
  let scratch: TestDatabase;

  beforeEach(async () => {
    scratch = await createScratchDatabase();
    await migrateLatest(scratch.db);
  });

  afterEach(async () => {
    await scratch?.close();
  });

  /** The database as it was before 017: its users have no deactivated_at, and 017 is not recorded. */
  async function before017(): Promise<void> {
    await scratch.db('knex_migrations').where('name', '017_user_deactivation').delete();
    await scratch.db.schema.alterTable('users', (t) => t.dropColumn('deactivated_at'));
  }

  const login = (app: Parameters<typeof api>[0]) =>
    api(app).post('/api/auth/token').send({ email: 'nobody@example.test', password: 'a-password' });

  it('When a login meets the column the pending migration adds, Then 503 with Retry-After until migrate runs, then it is answered; the watch logs both', async () => {
    await before017();
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const { app } = await buildApp({ deps: { db: scratch.db, logger } });
    const watch = watchSchema(scratch.db, logger, { everyMs: 60_000 });
    try {
      await watch.check();
      const upgrading = await login(app).expect(503);
      expect(upgrading.headers['retry-after']).to.equal('10');
      expect(upgrading.text).to.equal('{"message":"The service is being upgraded. Try again shortly."}');
      expect(lines.find((l) => l.level === 40 && Array.isArray(l.pending))).to.deep.include({ pending: ['017_user_deactivation'] });

      await migrateLatest(scratch.db);
      await watch.check();
      await login(app).expect(422);
      expect(lines.some((l) => l.msg === 'every migration is applied: the upgrade is complete')).to.equal(true);
    } finally {
      await watch.stop();
    }
  });

  it('When the database does not answer as the watch starts, Then it asks again at its interval and marks the pending migration once the database answers', async () => {
    await before017();
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const { app } = await buildApp({ deps: { db: scratch.db, logger } });
    // Its pool destroyed, the database answers nothing ("Unable to acquire a connection"), on either engine.
    await scratch.db.destroy();
    const watch = watchSchema(scratch.db, logger, { everyMs: 50 });
    try {
      await until(async () => lines.some((l) => l.msg === 'pending migrations not read: asked again at the next interval'), 5000, 'the failed read logged');
      scratch.db.initialize();
      await until(async () => lines.some((l) => Array.isArray(l.pending)), 5000, 'the pending migration found at a later interval');
      await login(app).expect(503);
    } finally {
      await watch.stop();
    }
  });

  it('When every migration is recorded and a column is missing all the same, Then it is a bug of ours: 500', async () => {
    await scratch.db.schema.alterTable('users', (t) => t.dropColumn('deactivated_at'));
    const logger = pino({ level: 'silent' });
    const { app } = await buildApp({ deps: { db: scratch.db, logger } });
    const watch = watchSchema(scratch.db, logger, { everyMs: 60_000 });
    try {
      await watch.check();
      // A 500 is in no operation's responses: outside the document on purpose.
      const res = await unchecked(app).post('/api/auth/token').send({ email: 'nobody@example.test', password: 'a-password' }).expect(500);
      expect(res.text).to.equal('{"message":"Server Error."}');
    } finally {
      await watch.stop();
    }
  });
});
