/**
 * The operator CLI's schema commands and its process conventions: `migrate`, `rollback` (only with
 * --force, after saying what it drops), `--version`, `--help`, and list commands that read the
 * database as it is (they never migrate).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/platform/project-root.js';
import { cliOn, emptyDatabase, spawnCli, type EmptyDatabase } from './cli-helpers.js';
import { LIVE_HEARTBEAT_MS } from '../../src/cli/rollback-plan.js';
import { nowDb } from '../../src/kernel/time.js';

const version = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

describe('CLI migrate and rollback', () => {
  let database: EmptyDatabase;

  beforeEach(async () => {
    database = await emptyDatabase();
  });

  afterEach(async () => {
    await database?.close();
  });

  const tables = async (): Promise<boolean> => database.db.schema.hasTable('companies');

  it('When migrate runs on an empty database, Then it applies every migration, and a second run says it is up to date', async () => {
    const first = await cliOn(database.db, ['migrate']);
    expect([first.code, first.err]).to.deep.equal([0, []]);
    expect(first.out).to.have.length(1);
    expect(first.out[0]).to.match(/^Migrated the database \(\d+ migrations: 001_platform, .*\)\.$/);
    expect(await tables()).to.equal(true);
    const second = await cliOn(database.db, ['migrate']);
    expect(second.out).to.deep.equal([`The database is up to date (${/\((\d+) migrations/.exec(first.out[0]!)![1]} migrations).`]);
  });

  it('When rollback runs without --force, Then it exits 2 naming each table it would drop with its rows and the migrations it would undo, and drops nothing', async () => {
    await cliOn(database.db, ['migrate']);
    // Two heartbeats of instances stopped long ago: rows the line counts, and no running instance.
    const old = nowDb(() => Date.now() - 3_600_000);
    await database.db('heartbeats').insert([{ name: 'cron', last_ping_at: old }, { name: 'webhook-worker', last_ping_at: old }]);
    // An operator's own table beside the service's: rollback does not drop it, so it does not name it.
    await database.db.schema.createTable('operator_notes', (t) => t.increments('id'));
    const result = await cliOn(database.db, ['rollback']);
    expect(result.code).to.equal(2);
    expect(result.out).to.deep.equal([]);
    expect(result.err).to.have.length(1);
    expect(result.err[0]).to.match(
      /^rollback drops every table of the service and all its data: \d+ tables holding \d+ rows \(article_id_sequence: \d+, articles: 0, .*\), undoing \d+ migrations \(\d{3}_\w+(, \d{3}_\w+)*, 001_platform\)\. Run rollback --force to do it\.$/,
    );
    expect(result.err[0]).to.contain(', heartbeats: 2, ');
    for (const kept of ['operator_notes', 'knex_migrations']) expect(result.err[0]).not.to.contain(kept);
    expect(await tables()).to.equal(true);
  });

  it('When rollback runs with --force, Then every table of the service is dropped and it names them; an operator table stays; again, there is nothing to roll back', async () => {
    await cliOn(database.db, ['migrate']);
    await database.db.schema.createTable('operator_notes', (t) => t.increments('id'));
    const result = await cliOn(database.db, ['rollback', '--force']);
    expect([result.code, result.err]).to.deep.equal([0, []]);
    expect(result.out[0]).to.match(/^Rolled back \d+ migrations \(.*001_platform\): \d+ tables of the service dropped \(article_id_sequence, articles, .*, webhooks\)\.$/);
    expect(await tables()).to.equal(false);
    expect(await database.db.schema.hasTable('operator_notes')).to.equal(true);
    const again = await cliOn(database.db, ['rollback', '--force']);
    expect(again.out).to.deep.equal(['Nothing to roll back: no migration is applied to this database.']);
  });

  it('When a server or worker wrote its heartbeat in the last 2 minutes, Then rollback --force refuses (exit 2, naming the heartbeats) and drops nothing; the dry run warns; an older heartbeat does not hold it back', async () => {
    await cliOn(database.db, ['migrate']);
    const at = (msAgo: number) => nowDb(() => Date.now() - msAgo);
    await database.db('heartbeats').insert([
      { name: 'cron', last_ping_at: at(40_000) },
      { name: 'webhook-worker', last_ping_at: at(1_000) },
    ]);
    const refused = await cliOn(database.db, ['rollback', '--force']);
    expect([refused.code, refused.out]).to.deep.equal([2, []]);
    expect(refused.err).to.have.length(1);
    expect(refused.err[0]).to.match(
      /^rollback refused: a server or worker is running on this database \(heartbeats: webhook-worker [12] s ago, cron 4[01] s ago\); dropping its tables would break it\. Stop every server and worker that uses this database, then run rollback --force again once no heartbeat is newer than 2 minutes\.$/,
    );
    expect(await tables()).to.equal(true);
    const dry = await cliOn(database.db, ['rollback']);
    expect(dry.err[0]).to.match(/Run rollback --force to do it\. Now a server or worker is running on this database \(heartbeats: webhook-worker [12] s ago, cron 4[01] s ago\): stop it first\.$/);

    await database.db('heartbeats').update({ last_ping_at: at(LIVE_HEARTBEAT_MS + 5_000) });
    const done = await cliOn(database.db, ['rollback', '--force']);
    expect([done.code, done.err]).to.deep.equal([0, []]);
    expect(await tables()).to.equal(false);
  });

  it('When a list command runs on an empty database, Then it does not migrate it (it fails on the missing table instead)', async () => {
    const result = await cliOn(database.db, ['list-companies', '--json']);
    expect(result.code).to.equal(1);
    expect(await tables()).to.equal(false);
    expect(await database.db.schema.hasTable('knex_migrations')).to.equal(false);
  });
});

describe('CLI migrate that fails (spawned process)', function () {
  this.timeout(60_000);
  let database: EmptyDatabase;

  beforeEach(async () => {
    database = await emptyDatabase();
    await cliOn(database.db, ['migrate']);
  });

  afterEach(async () => {
    await database?.close();
  });

  it('When the migrations lock is held (a migrate running or cut short), Then migrate exits 1 with one line saying so and where to read what to do, and no knex command', async () => {
    await database.db('knex_migrations_lock').update({ is_locked: 1 });
    const result = await spawnCli(database.url, 'migrate');
    expect(result.code).to.equal(1);
    expect(result.err).to.deep.equal([
      'Failed: the migrations are locked (knex_migrations_lock): another migrate is running on this database, or one was cut short; if none is running, docs/deployment.md (Migrate) says what to do.',
    ]);
  });

  it('When a migration fails, Then migrate exits 1 with one line naming the migration and the database error, without the statement', async () => {
    // The database forgets that 017 ran: running it again meets the column it added.
    await database.db('knex_migrations').where('name', '017_user_deactivation').delete();
    const result = await spawnCli(database.url, 'migrate');
    expect(result.code).to.equal(1);
    expect(result.err).to.have.length(1);
    expect(result.err[0]).to.match(/^Failed in migration 017_user_deactivation: (Duplicate column name 'deactivated_at'|duplicate column name: deactivated_at)$/);
  });
});

describe('CLI --version and --help (spawned process)', function () {
  this.timeout(60_000);

  it('When --version or --help is given, Then it exits 0 with the version or the command list, without opening the database', async () => {
    const unreachable = 'mysql://nobody@127.0.0.1:1/none';
    const shown = await spawnCli(unreachable, '--version');
    expect(shown).to.deep.equal({ code: 0, out: [`tpl-integration-api ${version}`], err: [] });
    const help = await spawnCli(unreachable, '--help');
    expect([help.code, help.err]).to.deep.equal([0, []]);
    for (const name of ['migrate', 'rollback', 'seed-demo', 'list-companies']) expect(help.out).to.include(`  ${name}`);
  });
});
