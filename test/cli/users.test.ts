/** Operator CLI: create-user, add-member, set-module, list-modules. */
import { expect } from 'chai';
import { verifyPassword } from '../../src/components/auth/passwords.js';
import { runDatabase } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { idAfter, ok, refused } from './cli-helpers.js';

const email = () => `${unique('cli-')}@example.test`;

async function client(): Promise<{ provider: number; client: number; name: string }> {
  const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
  const name = unique('Client ');
  return { provider, client: idAfter((await ok('create-client', '--provider', String(provider), '--name', name))[0], 'client company'), name };
}

describe('CLI create-user', () => {
  it('When no password is given, Then one is generated, printed once and it verifies', async () => {
    const address = email();
    const lines = await ok('create-user', '--email', address.toUpperCase(), '--name', 'Ana Operator');
    const id = idAfter(lines[0], 'user');
    expect(lines[0]).to.equal(`Created user ${id} ${address} 'Ana Operator'.`);
    const password = /^Generated password \(shown only now\): (\S{24})$/.exec(lines[1]!)?.[1];
    expect(password, lines[1]).to.be.a('string');
    expect(lines[2]).to.equal(`Next: add-member --user ${address} --company <id> --role viewer|operator|admin`);
    const { db } = await runDatabase();
    const row = await db('users').where('id', id).first();
    expect(row).to.include({ email: address, name: 'Ana Operator', primary_company_id: null });
    expect(Boolean(row.is_super_admin)).to.equal(false);
    expect(await verifyPassword(password!, row.password_hash)).to.equal(true);
  });

  it('When a password, super-admin and a primary company are given, Then they are stored and no password is printed', async () => {
    const { provider } = await client();
    const address = email();
    const lines = await ok('create-user', '--email', address, '--name', 'Root', '--password', 'correct horse battery', '--super-admin', '--primary', String(provider));
    expect(lines).to.deep.equal([`Created user ${idAfter(lines[0], 'user')} ${address} 'Root' as super-admin (every company) with primary company ${provider}.`]);
    const row = await (await runDatabase()).db('users').where('email', address).first();
    expect(Boolean(row.is_super_admin)).to.equal(true);
    expect(row.primary_company_id).to.equal(provider);
    expect(await verifyPassword('correct horse battery', row.password_hash)).to.equal(true);
  });

  it('When a primary company and a role are given, Then the user is made a member of it with that role, in the same transaction as the user', async () => {
    const { client: company, name } = await client();
    const address = email();
    const lines = await ok('create-user', '--email', address, '--name', 'Ops', '--password', 'long enough', '--primary', String(company), '--role', 'operator');
    const id = idAfter(lines[0], 'user');
    expect(lines).to.deep.equal([`Created user ${id} ${address} 'Ops' as operator of company ${company} '${name}' with primary company ${company}.`]);
    const { db } = await runDatabase();
    expect(await db('company_users').where('user_id', id).select('company_id', 'role')).to.deep.equal([{ company_id: company, role: 'operator' }]);
    expect((await db('users').where('id', id).first()).primary_company_id).to.equal(company);
  });

  it('When the email is taken (in any case), malformed, or the password or primary company is wrong, Then it exits 2', async () => {
    const address = email();
    await ok('create-user', '--email', address, '--name', 'First', '--password', 'long enough');
    await refused(['create-user', '--email', address.toUpperCase(), '--name', 'Second'], `--email ${address}: there is already a user with this email.`);
    await refused(['create-user', '--email', 'ana@', '--name', 'X'], '--email must be an email address (got "ana@").');
    // The API's own check: a user it could never log in (its login refuses the email's format).
    await refused(['create-user', '--email', 'josé@demo.test', '--name', 'X'], '--email must be an email address (got "josé@demo.test").');
    // …and never refuses one the login takes (the validator's pattern, which allows dots in a row).
    await ok('create-user', '--email', `first..${email()}`, '--name', 'Dots', '--password', 'long enough');
    await refused(['create-user', '--email', email(), '--name', 'X', '--password', 'short'], '--password must be at least 8 characters long.');
    await refused(['create-user', '--email', email(), '--name', 'X', '--primary', '999999', '--role', 'viewer'], '--primary 999999: there is no company 999999 (`list-companies` lists them).');
    // A user acts only for its companies: a primary company it is not a member of would refuse every request naming none.
    await refused(['create-user', '--email', email(), '--name', 'X', '--primary', '1'], '--primary 1 needs --role viewer|operator|admin (the user\'s role in that company), or --super-admin.');
    await refused(['create-user', '--email', email(), '--name', 'X', '--role', 'viewer'], '--role goes with --primary <id>: the company the user is made a member of.');
    await refused(['create-user', '--email', email(), '--name', 'X', '--super-admin', 'yes'], 'Unexpected argument "yes" for create-user: options are written --name value.');
  });
});

describe('CLI add-member', () => {
  it('When a user is added, Then the membership has the role; adding again changes or keeps the role', async () => {
    const { client: company, name } = await client();
    const address = email();
    const user = idAfter((await ok('create-user', '--email', address, '--name', 'Member', '--password', 'long enough'))[0], 'user');
    expect(await ok('add-member', '--user', address, '--company', String(company), '--role', 'viewer')).to.deep.equal([
      `Added user ${user} ${address} to company ${company} '${name}' as viewer.`,
    ]);
    expect(await ok('add-member', '--user', address, '--company', String(company), '--role', 'admin')).to.deep.equal([
      `Changed the role of user ${user} ${address} in company ${company} '${name}' from viewer to admin.`,
    ]);
    expect(await ok('add-member', '--user', address, '--company', String(company), '--role', 'admin')).to.deep.equal([
      `User ${user} ${address} is already admin of company ${company} '${name}'; nothing changed.`,
    ]);
    const rows = await (await runDatabase()).db('company_users').where('user_id', user);
    expect(rows.map((r) => [r.company_id, r.role])).to.deep.equal([[company, 'admin']]);
  });

  it('When the user or company is unknown or the role is wrong, Then it exits 2', async () => {
    const { client: company } = await client();
    const address = email();
    await refused(['add-member', '--user', address, '--company', String(company), '--role', 'viewer'], `--user ${address}: there is no user with this email (create it with create-user).`);
    await ok('create-user', '--email', address, '--name', 'Member', '--password', 'long enough');
    await refused(['add-member', '--user', address, '--company', '999999', '--role', 'viewer'], '--company 999999: there is no company 999999 (`list-companies` lists them).');
    await refused(['add-member', '--user', address, '--company', String(company), '--role', 'owner'], '--role must be one of viewer, operator, admin (got "owner").');
    await refused(['add-member', '--user', address, '--company', String(company)], 'add-member needs --role viewer|operator|admin (viewer reads; operator also writes; admin also manages webhooks).');
  });
});

describe('CLI set-module and list-modules', () => {
  it('When a module is switched off and on, Then list-modules shows it and a repeat changes nothing', async () => {
    const { client: company, name } = await client();
    expect(await ok('set-module', '--company', String(company), '--module', 'returns', '--off')).to.deep.equal([
      `Switched module returns off for company ${company} '${name}'.`,
    ]);
    expect(await ok('set-module', '--company', String(company), '--module', 'returns', '--off')).to.deep.equal([
      `Module returns is already off for company ${company} '${name}'; nothing changed.`,
    ]);
    const listed = await ok('list-modules', '--company', String(company));
    expect(listed[0]).to.equal(`Modules of company ${company} '${name}':`);
    expect(listed.slice(2).map((l) => l.trim().split(/\s+/))).to.deep.equal([
      ['api', 'on'], ['articles', 'on'], ['stock', 'on'], ['inbound', 'on'], ['outbound', 'on'], ['returns', 'off'], ['webhooks', 'on'],
    ]);
    await ok('set-module', '--company', String(company), '--module', 'returns', '--on');
    const row = await (await runDatabase()).db('company_modules').where({ company_id: company, module: 'returns' }).first();
    expect(Boolean(row.active)).to.equal(true);
  });

  it('When a company has no row for a module, Then switching it on adds the row', async () => {
    const { client: company } = await client();
    const { db } = await runDatabase();
    await db('company_modules').where({ company_id: company, module: 'webhooks' }).delete();
    expect((await ok('list-modules', '--company', String(company))).at(-1)!.trim().split(/\s+/)).to.deep.equal(['webhooks', 'off']);
    await ok('set-module', '--company', String(company), '--module', 'webhooks', '--on');
    expect((await ok('list-modules', '--company', String(company))).at(-1)!.trim().split(/\s+/)).to.deep.equal(['webhooks', 'on']);
  });

  it('When switching the api module off, Then it warns that every data route answers 403', async () => {
    const { client: company, name } = await client();
    const lines = await ok('set-module', '--company', String(company), '--module', 'api', '--off');
    expect(lines[1]).to.equal(`Note: every data route needs the api module, so company ${company} '${name}' now gets 403 on all of them.`);
  });

  it('When the module, the switch or the company is wrong, Then it exits 2', async () => {
    const { client: company } = await client();
    await refused(['set-module', '--company', String(company), '--module', 'billing', '--on'], '--module must be one of api, articles, stock, inbound, outbound, returns, webhooks (got "billing").');
    await refused(['set-module', '--company', String(company), '--module', 'returns'], 'set-module needs exactly one of --on or --off.');
    await refused(['set-module', '--company', String(company), '--module', 'returns', '--on', '--off'], 'set-module needs exactly one of --on or --off.');
    await refused(['set-module', '--company', String(company), '--module', 'returns', '--on=true'], 'Option --on takes no value.');
    await refused(['list-modules', '--company', '999999'], '--company 999999: there is no company 999999 (`list-companies` lists them).');
  });
});
