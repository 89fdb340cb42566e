/** Operator CLI: deactivate-user, activate-user and remove-member, checked against the API the user reaches. */
import { expect } from 'chai';
import { insertToken } from '../../src/components/auth/auth.repository.js';
import { generateToken, hashToken } from '../../src/components/auth/tokens.js';
import type { AuthChange } from '../../src/kernel/identity.js';
import { runCli } from '../../src/cli/run.js';
import { api } from '../helpers/api.js';
import { harness, runDatabase, type Harness } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { idAfter, ok, refused } from './cli-helpers.js';

const PASSWORD = 'long enough';

async function client(): Promise<{ id: number; name: string }> {
  const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
  const name = unique('Client ');
  return { id: idAfter((await ok('create-client', '--provider', String(provider), '--name', name))[0], 'client company'), name };
}

/** A user who is operator of a new client company (its primary company), with a token from the CLI. */
async function operator(): Promise<{ email: string; user: number; company: number; token: string }> {
  const company = (await client()).id;
  const email = `${unique('acct-')}@example.test`;
  const user = idAfter((await ok('create-user', '--email', email, '--name', 'Leaver', '--password', PASSWORD, '--primary', String(company), '--role', 'operator'))[0], 'user');
  const token = (await ok('issue-token', '--user', email))[1]!;
  return { email, user, company, token };
}

/** The changes a command announces to the running instances. */
async function announced(...argv: string[]): Promise<AuthChange[]> {
  const seen: AuthChange[] = [];
  const db = (await runDatabase()).db;
  const code = await runCli(argv, { out: () => undefined, err: () => undefined, database: () => db, announce: async (changes) => void seen.push(...changes) });
  expect(code).to.equal(0);
  return seen;
}

describe('CLI deactivate-user and activate-user', () => {
  let h: Harness;
  const login = (email: string, password = PASSWORD) => api(h.app).post('/api/auth/token').send({ email, password });

  before(async () => {
    h = await harness();
  });

  it('When a user is deactivated, Then its login answers exactly as a wrong password does, its tokens answer 401, and activating lets it log in again with the old tokens still revoked', async () => {
    const m = await operator();
    const loggedIn = (await login(m.email).expect(200)).body.token as string;
    await api(h.app, { token: loggedIn, company: m.company }).get('/api/partners').expect(200);
    const wrongPassword = (await login(m.email, 'not the password').expect(422)).body;

    expect(await ok('deactivate-user', '--user', m.email)).to.deep.equal([
      `Deactivated user ${m.user} ${m.email}: its login is refused and its 2 tokens revoked (activate-user undoes the first).`,
    ]);
    expect((await login(m.email).expect(422)).body).to.deep.equal(wrongPassword);
    expect((await login(m.email, 'not the password').expect(422)).body).to.deep.equal(wrongPassword);
    for (const token of [m.token, loggedIn]) await api(h.app, { token, company: m.company }).get('/api/partners').expect(401);
    expect(await ok('deactivate-user', '--user', m.email)).to.deep.equal([`User ${m.user} ${m.email} was already deactivated; nothing changed.`]);

    expect(await ok('activate-user', '--user', m.email)).to.deep.equal([`Activated user ${m.user} ${m.email}: it may log in again; its old tokens stay revoked.`]);
    const fresh = (await login(m.email).expect(200)).body.token as string;
    await api(h.app, { token: fresh, company: m.company }).get('/api/partners').expect(200);
    for (const token of [m.token, loggedIn]) await api(h.app, { token, company: m.company }).get('/api/partners').expect(401);
    expect(await ok('activate-user', '--user', m.email)).to.deep.equal([`User ${m.user} ${m.email} is not deactivated; nothing changed.`]);
  });

  it('When a login raced the deactivation (its token written after it), Then the token answers 401, and is revoked on activation rather than coming back', async () => {
    const m = await operator();
    await ok('deactivate-user', '--user', m.email);
    const { db } = await runDatabase();
    const raced = generateToken();
    const id = await insertToken(db, m.user, 'api', hashToken(raced));
    await api(h.app, { token: raced, company: m.company }).get('/api/partners').expect(401);
    await ok('activate-user', '--user', m.email);
    await api(h.app, { token: raced, company: m.company }).get('/api/partners').expect(401);
    expect((await db('personal_access_tokens').where('id', id).first()).revoked_at).to.not.equal(null);
  });

  it('When a user is deactivated or activated, Then the running instances are told to forget what they cached of the user', async () => {
    const m = await operator();
    expect(await announced('deactivate-user', '--user', m.email)).to.deep.equal([{ kind: 'user', userId: m.user }]);
    expect(await announced('deactivate-user', '--user', m.email)).to.deep.equal([]);
    expect(await announced('activate-user', '--user', m.email)).to.deep.equal([{ kind: 'user', userId: m.user }]);
  });

  it('When the user is unknown, or a token is asked for a deactivated user, Then it exits 2 with one line', async () => {
    const m = await operator();
    await refused(['deactivate-user', '--user', 'nobody@example.test'], '--user nobody@example.test: there is no user with this email (create it with create-user).');
    await refused(['activate-user', '--user', 'nobody@example.test'], '--user nobody@example.test: there is no user with this email (create it with create-user).');
    await refused(['deactivate-user'], 'deactivate-user needs --user <email> (the user email).');
    await ok('deactivate-user', '--user', m.email);
    await refused(['issue-token', '--user', m.email], `--user ${m.email}: the user is deactivated, so the API would refuse the token; activate-user --user ${m.email} first.`);
  });
});

describe('CLI remove-member', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  it('When a membership is removed, Then the token answers 403 for that company and still works for the others, and the instances are told', async () => {
    const m = await operator();
    const other = await client();
    await ok('add-member', '--user', m.email, '--company', String(other.id), '--role', 'viewer');
    const as = (company: number) => api(h.app, { token: m.token, company }).get('/api/partners');
    for (const company of [m.company, other.id]) await as(company).expect(200);
    expect(await announced('remove-member', '--user', m.email, '--company', String(other.id))).to.deep.equal([{ kind: 'user', userId: m.user }]);
    await as(other.id).expect(403);
    await as(m.company).expect(200);
    const rows = await (await runDatabase()).db('company_users').where('user_id', m.user).select('company_id');
    expect(rows.map((r) => r.company_id)).to.deep.equal([m.company]);
  });

  it('When the primary company is removed with --primary naming another of its companies, Then requests naming no company act for the new one', async () => {
    const m = await operator();
    const other = await client();
    await ok('add-member', '--user', m.email, '--company', String(other.id), '--role', 'viewer');
    const first = await (await runDatabase()).db('companies').where('id', m.company).first();
    expect(await ok('remove-member', '--user', m.email, '--company', String(m.company), '--primary', String(other.id))).to.deep.equal([
      `Removed user ${m.user} ${m.email} from company ${m.company} '${first.name}'; its primary company is now ${other.id} '${other.name}'.`,
    ]);
    await api(h.app, { token: m.token, company: m.company }).get('/api/partners').expect(403);
    await api(h.app, { token: m.token }).get('/api/partners').expect(200);
    expect((await (await runDatabase()).db('users').where('id', m.user).first()).primary_company_id).to.equal(other.id);
  });

  it('When the last membership of a user without a primary company is removed, Then it says the API now refuses its tokens', async () => {
    const { id: company, name } = await client();
    const email = `${unique('acct-')}@example.test`;
    const user = idAfter((await ok('create-user', '--email', email, '--name', 'Mover', '--password', PASSWORD))[0], 'user');
    await ok('add-member', '--user', email, '--company', String(company), '--role', 'admin');
    expect(await ok('remove-member', '--user', email, '--company', String(company))).to.deep.equal([
      `Removed user ${user} ${email} from company ${company} '${name}'.`,
      `Note: ${email} is now a member of no company, so the API refuses its tokens (403); if the user left, deactivate-user --user ${email}.`,
    ]);
  });

  it('When the user or company is unknown, the user is no member, or the primary company would be left, Then it exits 2 with one line and removes nothing', async () => {
    const m = await operator();
    const first = await (await runDatabase()).db('companies').where('id', m.company).first();
    const other = await client();
    await refused(['remove-member', '--user', 'nobody@example.test', '--company', String(m.company)], '--user nobody@example.test: there is no user with this email (create it with create-user).');
    await refused(['remove-member', '--user', m.email, '--company', '999999'], '--company 999999: there is no company 999999 (`list-companies` lists them).');
    await refused(['remove-member', '--user', m.email, '--company', String(other.id)], `--user ${m.email} is not a member of company ${other.id} '${other.name}'; nothing to remove.`);
    await refused(
      ['remove-member', '--user', m.email, '--company', String(m.company)],
      `--company ${m.company}: user ${m.email} would no longer act for its primary company ${m.company} '${first.name}' (the one of a request naming none): pass --primary <id> of a company it stays a member of, or deactivate-user --user ${m.email} if the user leaves.`,
    );
    await refused(
      ['remove-member', '--user', m.email, '--company', String(m.company), '--primary', String(other.id)],
      `--primary ${other.id}: user ${m.email} is not a member of company ${other.id} '${other.name}' once removed from company ${m.company} '${first.name}'; add-member first.`,
    );
    await api(h.app, { token: m.token, company: m.company }).get('/api/partners').expect(200);
  });

  it('When the user reaches a client only as a member of its provider, Then it exits 2 naming the provider to remove instead', async () => {
    const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
    const name = unique('Client ');
    const company = idAfter((await ok('create-client', '--provider', String(provider), '--name', name))[0], 'client company');
    const email = `${unique('acct-')}@example.test`;
    await ok('create-user', '--email', email, '--name', 'Provider staff', '--password', PASSWORD, '--primary', String(provider), '--role', 'operator');
    await refused(
      ['remove-member', '--user', email, '--company', String(company)],
      `--user ${email} is not a member of company ${company} '${name}' (it acts for it as a member of its provider: remove-member --company ${provider}); nothing to remove.`,
    );
  });
});
