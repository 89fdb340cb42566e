/**
 * AUTH_CACHE_TTL_SECONDS: a verified token and a resolved company access are reused for the TTL
 * (the other suites run with 0), and a rejected token is refused for the TTL without a lookup.
 * What it must not do: keep a token revoked through the API, or outlive its TTL.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { createToken, createUser, createWorld, type World } from '../helpers/factories.js';
import { buildApp, testConfig, type Harness } from '../helpers/harness.js';
import { generateToken } from '../../src/components/auth/tokens.js';

describe('Auth cache (AUTH_CACHE_TTL_SECONDS=1)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    const base = await buildApp();
    world = await createWorld(base.app, base.db);
  });

  // A cache of its own for each test: after a change (a revocation), a cache keeps nothing for SETTLE_MS.
  beforeEach(async () => {
    h = await buildApp({ config: testConfig({ AUTH_CACHE_TTL_SECONDS: '1' }) });
  });

  /** The statements the app sends while `work` runs. */
  async function statements(work: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const listen = (query: { sql: string }): void => void sent.push(query.sql);
    h.db.on('query', listen);
    try {
      await work();
    } finally {
      h.db.off('query', listen);
    }
    return sent;
  }

  it('When the same token asks for the same company twice, Then the second request looks up neither the token nor the access', async () => {
    const user = await createUser(h.db, { memberships: [[world.client.id, 'operator']] });
    const get = () => api(h.app, { token: user.token, company: world.client.id }).get('/api/articles').expect(200);
    const first = await statements(get);
    const second = await statements(get);
    const lookups = (sql: string[]) => sql.filter((s) => /personal_access_tokens|company_users|company_modules|from [`"]companies[`"]/i.test(s));
    expect(lookups(first)).to.have.length.greaterThan(0);
    expect(lookups(second)).to.deep.equal([]);
  });

  it('When a token is revoked through the API, Then the next request with it answers 401 at once', async () => {
    const user = await createUser(h.db, { memberships: [[world.client.id, 'operator']] });
    const as = () => api(h.app, { token: user.token, company: world.client.id });
    await as().get('/api/articles').expect(200);
    await as().post('/api/auth/revoke').expect(200);
    await as().get('/api/articles').expect(401);
  });

  it('When a token was rejected, Then it is refused again without looking it up, and looked up again after the TTL', async () => {
    const token = generateToken();
    const get = () => api(h.app, { token, company: world.client.id }).get('/api/articles').expect(401);
    const tokenLookups = async () => (await statements(get)).filter((sql) => /personal_access_tokens/i.test(sql)).length;
    expect(await tokenLookups()).to.equal(1);
    expect(await tokenLookups()).to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await tokenLookups()).to.equal(1);
  });

  it('When a membership is removed outside the app, Then it still counts within the TTL and no longer after it', async () => {
    const user = await createUser(h.db, { memberships: [[world.client.id, 'operator']] });
    const token = await createToken(h.db, user.id);
    const as = () => api(h.app, { token, company: world.client.id });
    await as().get('/api/articles').expect(200);
    await h.db('company_users').where({ user_id: user.id }).delete();
    await as().get('/api/articles').expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await as().get('/api/articles').expect(403);
  });
});
