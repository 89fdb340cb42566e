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

  it('When rollback runs without --force, Then it exits 2 saying it drops every table and which migrations it would undo, and drops nothing', async () => {
    await cliOn(database.db, ['migrate']);
    const result = await cliOn(database.db, ['rollback']);
    expect(result.code).to.equal(2);
    expect(result.out).to.deep.equal([]);
    expect(result.err).to.have.length(1);
    expect(result.err[0]).to.match(/^rollback drops every table of the service and all its data \(\d+ migrations to undo: \d{3}_\w+(, \d{3}_\w+)*, 001_platform\)\. Run rollback --force to do it\.$/);
    expect(await tables()).to.equal(true);
  });

  it('When rollback runs with --force, Then every table is dropped and it says so; again, there is nothing to roll back', async () => {
    await cliOn(database.db, ['migrate']);
    const result = await cliOn(database.db, ['rollback', '--force']);
    expect([result.code, result.err]).to.deep.equal([0, []]);
    expect(result.out[0]).to.match(/^Rolled back \d+ migrations \(.*001_platform\): the tables of the service are dropped\.$/);
    expect(await tables()).to.equal(false);
    const again = await cliOn(database.db, ['rollback', '--force']);
    expect(again.out).to.deep.equal(['Nothing to roll back: no migration is applied to this database.']);
  });

  it('When a list command runs on an empty database, Then it does not migrate it (it fails on the missing table instead)', async () => {
    const result = await cliOn(database.db, ['list-companies', '--json']);
    expect(result.code).to.equal(1);
    expect(await tables()).to.equal(false);
    expect(await database.db.schema.hasTable('knex_migrations')).to.equal(false);
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
