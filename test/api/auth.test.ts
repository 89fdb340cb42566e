import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { createUser, createWorld, TEST_PASSWORD, type World } from '../helpers/factories.js';
import { hashToken, TOKEN_PREFIX } from '../../src/components/auth/tokens.js';

describe('POST /api/auth/token', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When the credentials are right, Then it answers a prefixed token and the user, and stores only its hash', async () => {
    const email = world.users.operator.email;
    const res = await api(h.app).post('/api/auth/token').send({ email, password: TEST_PASSWORD, device_name: 'erp' }).expect(200);
    expect(res.body.token).to.match(new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(res.body.user).to.deep.equal({ id: world.users.operator.id, name: `User ${email}`, email });
    const rows = await h.db('personal_access_tokens').where('user_id', world.users.operator.id).select('token_hash', 'name');
    expect(rows.map((r) => r.token_hash)).to.include(hashToken(res.body.token));
    expect(JSON.stringify(rows)).not.to.include(res.body.token);
    await api(h.app, { token: res.body.token }).get('/api/companies').expect(200);
  });

  it('When a token is issued, Then the answer carries Cache-Control: no-store (RFC 6749, 5.1), as the document declares', async () => {
    const res = await api(h.app).post('/api/auth/token').send({ email: world.users.viewer.email, password: TEST_PASSWORD }).expect(200);
    expect(res.headers['cache-control']).to.equal('no-store');
    const doc = await api(h.app).get('/openapi.json').expect(200);
    expect(doc.body.paths['/api/auth/token'].post.responses['200'].headers['Cache-Control']).to.deep.equal({ $ref: '#/components/headers/Cache-Control-No-Store' });
  });

  it('When the email differs only in case, Then it still logs in', async () => {
    await api(h.app).post('/api/auth/token').send({ email: world.users.viewer.email.toUpperCase(), password: TEST_PASSWORD }).expect(200);
  });

  it('When the password is wrong or the email unknown, Then both answer the same 422 on email', async () => {
    const wrong = await api(h.app).post('/api/auth/token').send({ email: world.users.viewer.email, password: 'nope' }).expect(422);
    const unknown = await api(h.app).post('/api/auth/token').send({ email: 'nobody@example.test', password: 'nope' }).expect(422);
    expect(wrong.body).to.deep.equal(unknown.body);
    expect(wrong.body).to.deep.equal({
      message: 'These credentials do not match our records.',
      errors: { email: ['These credentials do not match our records.'] },
    });
  });

  it('When the payload is bad, Then it answers 422 naming each field', async () => {
    const res = await api(h.app).post('/api/auth/token').send({ email: 'not-an-email' }).expect(422);
    expect(res.body.errors).to.deep.equal({
      email: ['The email field must be a valid email address.'],
      password: ['The password field is required.'],
    });
  });

  it('When the body has a field the schema does not know, Then it answers 422 naming it', async () => {
    const res = await api(h.app)
      .post('/api/auth/token')
      .send({ email: world.users.viewer.email, password: TEST_PASSWORD, company_id: 3 })
      .expect(422);
    expect(res.body.errors).to.deep.equal({ company_id: ['The company_id field is not allowed.'] });
  });
});

describe('POST /api/auth/revoke', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  it('When a token is revoked, Then the next request with it is 401 and other tokens still work', async () => {
    const user = await createUser(h.db, { superAdmin: true });
    const login = await api(h.app).post('/api/auth/token').send({ email: user.email, password: TEST_PASSWORD }).expect(200);
    const revoked = api(h.app, { token: login.body.token });
    await revoked.post('/api/auth/revoke').expect(200, { message: 'Token revoked.' });
    await revoked.get('/api/companies').expect(401, { message: 'Unauthenticated.' });
    await revoked.post('/api/auth/revoke').expect(401, { message: 'Unauthenticated.' });
    await api(h.app, { token: user.token }).get('/api/companies').expect(200);
  });
});

describe('Bearer tokens', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  for (const [what, header] of [
    ['missing', undefined],
    ['not a bearer', 'Basic dXNlcjpwYXNz'],
    ['malformed', 'Bearer'],
    ['unknown', `Bearer ${TOKEN_PREFIX}${'a'.repeat(43)}`],
    ['of another shape', 'Bearer something-else'],
  ] as const) {
    it(`When the token is ${what}, Then it answers 401 Unauthenticated.`, async () => {
      const req = api(h.app).get('/api/companies');
      if (header) req.set('Authorization', header);
      await req.expect(401, { message: 'Unauthenticated.' });
    });
  }
});
