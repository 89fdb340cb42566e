/** GET /api, GET /openapi.json and GET /docs: all built from the document. */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { harness, type Harness, TEST_APP_URL } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { operations } from '../helpers/operations.js';
import { requiresAuth } from '../../src/platform/openapi/document.js';

describe('GET /api', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  it('When called without a token, Then it lists every operation of the document with its auth', async () => {
    const res = await api(h.app).get('/api').expect(200);
    expect(res.body).to.include({ name: '3PL Logistics Integration API', version: '1.0' });
    expect(res.body.links).to.deep.equal({
      openapi: `${TEST_APP_URL}/openapi.json`,
      docs: `${TEST_APP_URL}/docs`,
      graphql: `${TEST_APP_URL}/graphql`,
    });
    expect(res.body.operations).to.deep.equal(
      operations.map((op) => ({ method: op.method, path: op.path, operation_id: op.operationId, summary: op.summary, auth: requiresAuth(op) })),
    );
    const byId = Object.fromEntries(res.body.operations.map((o: { operation_id: string; auth: boolean }) => [o.operation_id, o]));
    expect(byId.getArticle).to.include({ method: 'GET', path: '/api/articles/{id}', auth: true });
    expect(byId.createToken.auth).to.equal(false);
    expect(byId.getApiIndex.auth).to.equal(false);
  });

  it('When called with an invalid token, Then it answers 401 (a token that is sent must be valid)', async () => {
    await api(h.app, { token: 'wrong' }).get('/api').expect(401, { message: 'Unauthenticated.' });
  });
});

describe('GET /openapi.json', () => {
  it('When fetched, Then it is the bundled document, version 1.0 of OpenAPI 3.0.3', async () => {
    const h = await harness();
    const res = await api(h.app).get('/openapi.json').expect(200).expect('Content-Type', /application\/json/);
    expect(res.body).to.deep.equal(JSON.parse(readFileSync('openapi/openapi.json', 'utf8')));
    expect(res.body.openapi).to.equal('3.0.3');
    expect(res.body.info.version).to.equal('1.0');
  });
});

describe('GET /docs', () => {
  it('When fetched, Then it is an HTML reference that loads nothing from elsewhere', async () => {
    const h = await harness();
    const res = await api(h.app).get('/docs').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).to.include('Redoc.init(');
    expect(res.text).to.include('"operationId":"createReception"');
    expect(res.text).not.to.match(/<script[^>]+src=/i);
    expect(res.text).not.to.match(/<link[^>]+href=["']?https?:/i);
    expect(res.text, 'the attribution logo of the Redoc CDN').not.to.include('cdn.redoc.ly/redoc/logo-mini.svg');
    const csp = res.headers['content-security-policy'];
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.include("img-src 'self' data:");
    expect(csp).not.to.match(/https?:/);
  });
});
