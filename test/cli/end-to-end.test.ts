/**
 * The real CLI process (`node --import tsx bin/tpl.ts`) provisions an empty database from
 * nothing, and the API then works with what it made: a provider, a client, a warehouse, units,
 * partners, a user with a membership, a module switched off, and a token; revoking it makes it 401.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { buildApp, type Harness } from '../helpers/harness.js';
import { emptyDatabase, idAfter, spawnCli, type EmptyDatabase } from './cli-helpers.js';

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
});
