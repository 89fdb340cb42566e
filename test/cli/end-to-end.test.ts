/**
 * The real CLI process (`node --import tsx bin/tpl.ts`) provisions an empty database from
 * nothing, and the API then works with what it made: a provider, a client, a warehouse, units,
 * partners, a user with a membership, a module switched off, and a token; revoking it makes it 401.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { buildApp, type Harness } from '../helpers/harness.js';
import { createServer, type Server } from 'node:net';
import { emptyDatabase, idAfter, spawnCli, spawnCliWith, type EmptyDatabase } from './cli-helpers.js';
import { testEnv } from '../helpers/test-env.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

describe('CLI end to end (spawned process)', function () {
  this.timeout(180_000);
  let database: EmptyDatabase;
  let h: Harness;

  before(async () => {
    database = await emptyDatabase();
  });

  after(async () => {
    await database?.close();
  });

  /** Runs one command and expects it to succeed, with nothing on stderr. */
  async function run(...argv: string[]): Promise<string[]> {
    const result = await spawnCli(database.url, ...argv);
    expect(result.err, `${argv.join(' ')}: ${result.err.join('\n')}`).to.deep.equal([]);
    expect(result.code).to.equal(0);
    return result.out;
  }

  it('When a provider provisions an empty database command by command, Then its client reads partners through the API with the issued token', async () => {
    const first = await run('create-provider', '--name', 'Demo Logistics', '--vat', 'RO10000001');
    expect(first[0]).to.match(/^Migrated the database \(\d+ migrations: 001_platform, .*\)\.$/);
    const provider = idAfter(first[1], 'provider company');
    const client = idAfter((await run('create-client', '--provider', String(provider), '--name', 'Acme Foods'))[0], 'client company');
    expect(client).to.not.equal(provider);
    const warehouse = idAfter((await run('create-warehouse', '--provider', String(provider), '--code', 'WH-BUC', '--name', 'Bucharest North'))[0], 'warehouse');
    await run('create-unit', '--provider', String(provider), '--code', 'BUC', '--name', 'Piece', '--whole-only', 'true');
    await run('create-partner', '--client', String(client), '--provider', String(provider), '--type', 'supplier', '--name', 'Fresh Farms SRL', '--code', 'SUP-01');
    await run('create-partner', '--client', String(client), '--type', 'client', '--name', 'Mega Market SA', '--code', 'CLI-01');
    const created = await run('create-user', '--email', 'erp@acme.example', '--name', 'Acme ERP');
    const password = /: (\S+)$/.exec(created[1]!)![1]!;
    await run('add-member', '--user', 'erp@acme.example', '--company', String(client), '--role', 'operator');
    await run('set-module', '--company', String(client), '--module', 'returns', '--off');
    const issued = await run('issue-token', '--user', 'erp@acme.example', '--name', 'erp');
    const token = issued[1]!;
    const companies = await run('list-companies');
    expect(companies.slice(1).map((l) => l.split(/\s{2,}/))).to.deep.equal([
      [String(provider), 'provider', 'Demo Logistics', 'RO10000001'],
      [String(client), 'client', String(provider), 'Acme Foods'],
    ]);

    h = await buildApp({ deps: { db: database.db } });
    const as = api(h.app, { token, company: client });
    const partners = await as.get('/api/partners').expect(200);
    expect(partners.body.data.map((p: { code: string; type: string; client_3pl_id: number }) => [p.code, p.type, p.client_3pl_id])).to.deep.equal([
      ['SUP-01', 'supplier', client],
      ['CLI-01', 'client', client],
    ]);
    const warehouses = await as.get('/api/warehouses').expect(200);
    expect(warehouses.body.data.map((w: { id: number }) => w.id)).to.deep.equal([warehouse]);
    await as.get('/api/returns').expect(403);
    // The generated password logs in too.
    await api(h.app).post('/api/auth/token').send({ email: 'erp@acme.example', password }).expect(200);

    const revoked = await run('revoke-token', '--token', token);
    expect(revoked).to.deep.equal([`Revoked token ${idAfter(issued[0], 'token')} 'erp' of user ${idAfter(created[0], 'user')} erp@acme.example.`]);
    await as.get('/api/partners').expect(401);
  });

  it('When the process is given a mistake, Then it exits 2 with one line on stderr and no stack trace', async () => {
    for (const [argv, message] of [
      [['create-client', '--provider', 'abc', '--name', 'X'], '--provider must be a positive whole number, an id (got "abc").'],
      [['add-member', '--user', 'nobody@acme.example', '--company', '1', '--role', 'viewer'], '--user nobody@acme.example: there is no user with this email (create it with create-user).'],
    ] as const) {
      const result = await spawnCli(database.url, ...argv);
      expect(result.code).to.equal(2);
      expect(result.out).to.deep.equal([]);
      expect(result.err).to.deep.equal([message]);
    }
  });
  it('When DATABASE_URL names a SQLite file that does not exist, Then a list or rollback exits 2 saying so and creates nothing; migrate creates it', async () => {
    const folder = path.join(mkdtempSync(path.join(tmpdir(), 'tpl-cli-missing-')), 'no-such-folder');
    const file = path.join(folder, 'typo.sqlite');
    try {
      for (const argv of [['list-companies'], ['list-modules', '--company', '1'], ['rollback']]) {
        const result = await spawnCli(`sqlite:${file}`, ...argv);
        expect(result.code, argv[0]).to.equal(2);
        expect(result.out).to.deep.equal([]);
        expect(result.err).to.deep.equal([`There is no SQLite database at ${file}. ${argv[0]} reads a database and does not create one: check DATABASE_URL.`]);
        expect(existsSync(folder), 'nothing created').to.equal(false);
      }
      expect((await spawnCli(`sqlite:${file}`, 'migrate')).code).to.equal(0);
      expect(existsSync(file)).to.equal(true);
    } finally {
      rmSync(path.dirname(folder), { recursive: true, force: true });
    }
  });

  it('When REDIS_URL is set but no instance listens with that REDIS_PREFIX, Then the change is saved, a warning names the prefix, and the process exits 0', async () => {
    const provider = idAfter((await spawnCli(database.url, 'create-provider', '--name', 'Unheard Redis Logistics')).out.at(-1), 'provider company');
    const result = await spawnCliWith({ REDIS_URL: testEnv.redisUrl, REDIS_PREFIX: 'tpl-cli-nobody-listens' }, database.url, 'set-module', '--company', String(provider), '--module', 'returns', '--off');
    expect(result.code, result.err.join('\n')).to.equal(0);
    expect(result.out).to.deep.equal([`Switched module returns off for company ${provider} 'Unheard Redis Logistics'.`]);
    expect(result.err).to.deep.equal([
      'Warning: the change is saved, but no running instance listens on Redis with REDIS_PREFIX "tpl-cli-nobody-listens": if instances run, set the REDIS_PREFIX they have; else they see it within their AUTH_CACHE_TTL_SECONDS.',
    ]);
  });

  it('When REDIS_URL names a Redis that takes the connection and never answers, Then a change is saved, the warning printed, and the process exits 0 on its own', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const provider = idAfter((await spawnCli(database.url, 'create-provider', '--name', 'Silent Redis Logistics')).out.at(-1), 'provider company');
      const started = Date.now();
      const result = await spawnCliWith({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: 'tpl-cli-silent' }, database.url, 'set-module', '--company', String(provider), '--module', 'returns', '--off');
      expect(result.code, result.err.join('\n')).to.equal(0);
      expect(result.out).to.deep.equal([`Switched module returns off for company ${provider} 'Silent Redis Logistics'.`]);
      expect(result.err).to.have.length(1);
      expect(result.err[0]).to.match(/^Warning: the change is saved, but Redis \(REDIS_URL\) could not be reached/);
      expect(Date.now() - started, 'exits within seconds, not never').to.be.below(20_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
