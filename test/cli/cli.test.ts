/** Operator CLI: commands, help, option parsing and the exit codes of mistakes. */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { flagOf, parseOptions, UsageError } from '../../src/cli/args.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { unlessTaken } from '../../src/cli/lookups.js';
import { runCli } from '../../src/cli/run.js';
import { migrateLatest } from '../../db/migrations/index.js';
import { createScratchDatabase } from '../helpers/database.js';
import { runDatabase } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { testEnv } from '../helpers/test-env.js';
import { cli, refused } from './cli-helpers.js';

describe('CLI help and dispatch', () => {
  it('When asked for help, Then it lists every command of the issue with each of its options', async () => {
    const { code, out, err } = await cli('help');
    expect([code, err]).to.deep.equal([0, []]);
    const text = out.join('\n');
    for (const name of [
      'create-provider', 'create-client', 'create-warehouse', 'create-partner', 'create-unit', 'create-user', 'add-member',
      'set-module', 'list-modules', 'issue-token', 'revoke-token', 'deactivate-user', 'activate-user', 'remove-member', 'list-deliveries', 'list-failed-events', 'requeue-failed-events', 'list-companies', 'help',
    ]) {
      expect(text).to.match(new RegExp(`^  ${name}\\b`, 'm'));
    }
    for (const command of COMMANDS) {
      for (const key of Object.keys(command.options)) expect(text).to.include(`      ${flagOf(key)}`);
    }
    expect(text).to.include('--type supplier|client');
    expect(text).to.include('--role viewer|operator|admin');
    expect(text).to.include('--whole-only true|false');
  });

  it('When asked for the help of one command, Then it shows that command alone, without touching the database', async () => {
    const io = { out: [] as string[], err: [] as string[] };
    const run = (argv: string[]) =>
      runCli(argv, { out: (l) => io.out.push(l), err: (l) => io.err.push(l), database: () => { throw new Error('no database for help'); } });
    expect(await run(['help', 'create-unit'])).to.equal(0);
    expect(await run(['create-unit', '--help'])).to.equal(0);
    expect(io.err).to.deep.equal([]);
    expect(io.out[0]).to.equal('  create-unit');
    expect(io.out.join('\n')).to.include('--whole-only true|false');
    expect(io.out.filter((l) => l === '  create-unit')).to.have.length(2);
    expect(io.out.join('\n')).to.not.include('create-client');
    // A mistake in the options is found before the database is opened.
    expect(await run(['create-provider'])).to.equal(2);
  });

  it('When no command, an unknown command or help of an unknown command is given, Then it exits 2 with one line', async () => {
    await refused([], 'Name a command: npm run cli -- <command> [--option value ...] (`npm run cli -- help` lists them).');
    await refused(['create-company'], 'Unknown command "create-company"; `npm run cli -- help` lists the commands.');
    await refused(['help', 'nope'], 'Unknown command "nope"; `npm run cli -- help` lists the commands.');
  });

  it('When the database fails, Then it exits 1 with one line and no stack trace', async () => {
    const err: string[] = [];
    const code = await runCli(['list-companies'], {
      out: () => {},
      err: (l) => err.push(l),
      database: () => { throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }); },
    });
    expect(code).to.equal(1);
    expect(err).to.deep.equal(['The database cannot be reached: connect ECONNREFUSED 127.0.0.1:1']);
  });
});

describe('CLI: a failed statement', () => {
  it('When a statement fails, Then the one line shows the database\'s message, not the statement or its values', async () => {
    const scratch = await createScratchDatabase();
    try {
      await migrateLatest(scratch.db);
      const io = { out: [] as string[], err: [] as string[] };
      const run = (argv: string[]) => runCli(argv, { out: (l) => io.out.push(l), err: (l) => io.err.push(l), database: () => scratch.db });
      expect(await run(['create-user', '--email', 'leak@example.test', '--name', 'Leak', '--password', 'a-secret-password'])).to.equal(0);
      await scratch.db.schema.dropTable('personal_access_tokens');
      expect(await run(['issue-token', '--user', 'leak@example.test', '--name', 'erp-secret-name'])).to.equal(1);
      expect(io.err).to.have.length(1);
      const missing = ' \\(a table is missing: if the database was never migrated, run the migrate command\\)\\.$';
      expect(io.err[0]).to.match(new RegExp(testEnv.engine === 'sqlite' ? `^Failed: no such table: personal_access_tokens${missing}` : `^Failed: Table '[^']+\\.personal_access_tokens' doesn't exist${missing}`));
    } finally {
      await scratch.close();
    }
  });
});

describe('CLI option parsing', () => {
  const spec = {
    provider: { kind: 'id', required: true, help: 'the provider' },
    wholeOnly: { kind: 'bool', help: 'whole numbers' },
    limit: { kind: 'int', min: 1, max: 5, help: 'how many' },
    all: { kind: 'flag', help: 'every one' },
  } as const;

  it('When options are right, Then they come back typed, kebab-case flags as camelCase keys', () => {
    expect(parseOptions('x', spec, ['--provider', '7', '--whole-only', 'false', '--limit=3', '--all'])).to.deep.equal({ provider: 7, wholeOnly: false, limit: 3, all: true });
    expect(parseOptions('x', spec, ['--provider', ' 7 '])).to.deep.equal({ provider: 7, all: false });
  });

  it('When a value has the wrong type or range, Then the UsageError names the option and the value', () => {
    const message = (args: string[]) => {
      try {
        parseOptions('x', spec, args);
      } catch (error) {
        expect(error).to.be.instanceOf(UsageError);
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(message(['--provider', '1.5'])).to.equal('--provider must be a positive whole number, an id (got "1.5").');
    expect(message(['--provider', '99999999999999999999'])).to.equal('--provider must be a positive whole number, an id (got "99999999999999999999").');
    expect(message(['--provider', '1', '--limit', '6'])).to.equal('--limit must be a whole number from 1 to 5 (got "6").');
    expect(message(['--provider', '1', '--all', 'x'])).to.equal('Unexpected argument "x" for x: options are written --name value.');
    expect(message(['-p', '1'])).to.equal('Unknown option -p for x; x takes --provider, --whole-only, --limit, --all.');
  });

  it('When a write hits a unique index (a twin written since the check), Then it becomes a UsageError on both engines', async () => {
    const { db } = await runDatabase();
    const email = `${unique('twin-')}@example.test`;
    const row = { name: 'Twin', email, password_hash: 'x' };
    await build.insertUser(db, row);
    let caught: unknown;
    try {
      await unlessTaken(() => build.insertUser(db, row), `--email ${email}: there is already a user with this email.`);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(UsageError);
    expect((caught as Error).message).to.equal(`--email ${email}: there is already a user with this email.`);
  });
});
