/** Security headers (helmet) on every answer; the two HTML pages carry their own policy. */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { PAGE_CONTENT_SECURITY_POLICY } from '../../src/platform/http/security-headers.js';

function expectHardened(res: Response, csp: string): void {
  expect(res.headers['content-security-policy']).to.equal(csp);
  expect(res.headers['x-content-type-options']).to.equal('nosniff');
  expect(res.headers['x-frame-options']).to.equal('SAMEORIGIN');
  expect(res.headers['referrer-policy']).to.equal('no-referrer');
  expect(res.headers['strict-transport-security']).to.match(/^max-age=\d+; includeSubDomains$/);
  expect(res.headers['cross-origin-opener-policy']).to.equal('same-origin');
  expect(res.headers).not.to.have.property('x-powered-by');
}

describe('Security headers', () => {
  let h: Harness;
  let world: World;
  const JSON_POLICY = "default-src 'none';frame-ancestors 'none'";

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When a JSON answer is sent (a success, an error, an unknown route), Then it carries the security headers and a policy that runs nothing', async () => {
    expectHardened(await world.as('operator').get('/api/articles').expect(200), JSON_POLICY);
    expectHardened(await api(h.app).get('/api/articles').expect(401), JSON_POLICY);
    expectHardened(await api(h.app).get('/api/no-such-route').expect(404), JSON_POLICY);
  });

  it('When /docs and GraphiQL are opened, Then they carry the offline page policy instead', async () => {
    expectHardened(await api(h.app).get('/docs').expect(200), PAGE_CONTENT_SECURITY_POLICY);
    const graphiql = await api(h.app).get('/graphql').set('Accept', 'text/html').expect(200);
    expect(graphiql.headers['content-type']).to.match(/^text\/html/);
    expectHardened(graphiql, PAGE_CONTENT_SECURITY_POLICY);
  });
});
