/** Operator CLI: issue-token and revoke-token, checked against the API the token opens. */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { harness, runDatabase, type Harness } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { idAfter, ok, refused } from './cli-helpers.js';

interface Member {
  email: string;
  user: number;
  client: number;
}

async function member(): Promise<Member> {
  const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
  const client = idAfter((await ok('create-client', '--provider', String(provider), '--name', unique('Client ')))[0], 'client company');
  await ok('create-partner', '--client', String(client), '--type', 'supplier', '--name', 'Fresh Farms');
  const email = `${unique('tok-')}@example.test`;
  const user = idAfter((await ok('create-user', '--email', email, '--name', 'Token User', '--password', 'long enough'))[0], 'user');
  await ok('add-member', '--user', email, '--company', String(client), '--role', 'operator');
  return { email, user, client };
}

async function issue(email: string, ...more: string[]): Promise<{ id: number; token: string; lines: string[] }> {
  const lines = await ok('issue-token', '--user', email, ...more);
  return { id: idAfter(lines[0], 'token'), token: lines[1]!, lines };
}

describe('CLI issue-token and revoke-token', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  it('When a token is issued, Then it is printed once, only its hash is stored, and the API accepts it', async () => {
    const m = await member();
    const { id, token, lines } = await issue(m.email, '--name', 'erp');
    expect(lines).to.deep.equal([`Issued token ${id} 'erp' for user ${m.user} ${m.email}. Store it now; it is not shown again:`, token]);
    expect(token).to.match(/^3pl_pat_[A-Za-z0-9_-]{43}$/);
    const row = await (await runDatabase()).db('personal_access_tokens').where('id', id).first();
    expect(row).to.include({ user_id: m.user, name: 'erp', revoked_at: null });
    expect(row.token_hash).to.not.include(token);
    const res = await api(h.app, { token, company: m.client }).get('/api/partners').expect(200);
    expect(res.body.data.map((p: { name: string }) => p.name)).to.deep.equal(['Fresh Farms']);
  });

  it('When the token is revoked, Then the API answers 401 and revoking again changes nothing', async () => {
    const m = await member();
    const { id, token } = await issue(m.email);
    await api(h.app, { token, company: m.client }).get('/api/partners').expect(200);
    expect(await ok('revoke-token', '--token', token)).to.deep.equal([`Revoked token ${id} 'cli' of user ${m.user} ${m.email}.`]);
    await api(h.app, { token, company: m.client }).get('/api/partners').expect(401);
    expect(await ok('revoke-token', '--token', token)).to.deep.equal([`Token ${id} 'cli' of ${m.email} was already revoked; nothing changed.`]);
  });

  it('When every token of a user is revoked, Then each answers 401 and the count is said', async () => {
    const m = await member();
    const tokens = [(await issue(m.email)).token, (await issue(m.email)).token];
    expect(await ok('revoke-token', '--user', m.email, '--all')).to.deep.equal([`Revoked 2 tokens of user ${m.user} ${m.email}.`]);
    for (const token of tokens) await api(h.app, { token, company: m.client }).get('/api/partners').expect(401);
    expect(await ok('revoke-token', '--user', m.email, '--all')).to.deep.equal([`Revoked 0 tokens of user ${m.user} ${m.email}.`]);
  });

  it('When the user is a member of no company, Then the token is issued with a note that the API refuses it', async () => {
    const email = `${unique('lonely-')}@example.test`;
    await ok('create-user', '--email', email, '--name', 'Lonely', '--password', 'long enough');
    const { token, lines } = await issue(email);
    expect(lines[2]).to.equal(`Note: ${email} is a member of no company yet, so the API refuses the token (403) until add-member.`);
    await api(h.app, { token }).get('/api/partners').expect(403);
  });

  it('When the user, the token or the way to name it is wrong, Then it exits 2', async () => {
    const m = await member();
    await refused(['issue-token', '--user', 'nobody@example.test'], '--user nobody@example.test: there is no user with this email (create it with create-user).');
    await refused(['issue-token'], 'issue-token needs --user <email> (the user email).');
    await refused(['revoke-token'], 'revoke-token needs --token <token>, or --user <email> --all.');
    await refused(['revoke-token', '--user', m.email], 'revoke-token --user needs --all (to revoke one token, pass --token <token>).');
    await refused(['revoke-token', '--all'], 'revoke-token --all needs --user <email>.');
    await refused(['revoke-token', '--token', 'abc', '--user', m.email, '--all'], 'revoke-token takes either --token <token> or --user <email> --all, not both.');
    await refused(['revoke-token', '--token', 'abc'], '--token: this is not a personal access token: they are 3pl_pat_ and 43 more characters (this one has another start).');
    // A token cut short says so, rather than that it does not start with the prefix it has.
    await refused(['revoke-token', '--token', '3pl_pat_doesnotexist'], '--token: this is not a personal access token: they are 3pl_pat_ and 43 more characters (this one has 12 after the prefix: cut short or mistyped?).');
    await refused(['revoke-token', '--token', `3pl_pat_${'x'.repeat(43)}`], '--token: no such token (it was never issued here, or it was mistyped).');
    await refused(['revoke-token', '--user', 'nobody@example.test', '--all'], '--user nobody@example.test: there is no user with this email (create it with create-user).');
  });
});
