/** GET /api, GET /openapi.json and GET /docs: all built from the document. */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { buildApp, harness, testConfig, type Harness, TEST_APP_URL } from '../helpers/harness.js';
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
  const bundled = () => JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));

  it('When fetched, Then it is the bundled document, version 1.0 of OpenAPI 3.0.3, but for its servers', async () => {
    const h = await harness();
    const res = await api(h.app).get('/openapi.json').expect(200).expect('Content-Type', /application\/json/);
    expect({ ...res.body, servers: undefined }).to.deep.equal({ ...bundled(), servers: undefined });
    expect(res.body.openapi).to.equal('3.0.3');
    expect(res.body.info.version).to.equal('1.0');
  });

  it('When fetched, Then its servers name the absolute APP_URL, and the discovery links and the /docs page agree (the committed bundle keeps "/")', async () => {
    const h = await buildApp({ config: testConfig({ APP_URL: 'https://wms.example.com:8443/integration/' }) });
    const res = await api(h.app).get('/openapi.json').expect(200);
    expect(res.body.servers).to.deep.equal([{ url: 'https://wms.example.com:8443/integration', description: 'This server (its public address, APP_URL).' }]);
    const index = await api(h.app).get('/api').expect(200);
    expect(index.body.links.openapi).to.equal(`${res.body.servers[0].url}/openapi.json`);
    expect(index.body.links.docs).to.equal(`${res.body.servers[0].url}/docs`);
    const docs = await api(h.app).get('/docs').expect(200);
    expect(docs.text).to.include('"servers":[{"url":"https://wms.example.com:8443/integration"');
    expect(bundled().servers).to.deep.equal([{ url: '/', description: 'The site root of the server that serves this document' }]);
    // The shared app of the suite serves its own address: one document per address, built once.
    expect((await api((await harness()).app).get('/openapi.json')).body.servers[0].url).to.equal(TEST_APP_URL);
  });

  it('When the header X-Company-Id is read in the document, Then it is a string of digits (a header is text), leading zeros allowed as in integer parameters', async () => {
    const res = await api((await harness()).app).get('/openapi.json').expect(200);
    for (const name of ['CompanyIdOptional', 'CompanyIdRequired', 'CompanyIdGraphql']) {
      expect(res.body.components.parameters[name]).to.include({ name: 'X-Company-Id', in: 'header' });
      expect(res.body.components.parameters[name].schema).to.deep.equal({ $ref: '#/components/schemas/CompanyIdHeader' });
    }
    expect(res.body.components.schemas.CompanyIdHeader).to.include({ type: 'string', pattern: '^0*[1-9][0-9]{0,9}$', minLength: 1 });
  });

  it('When the X-Company-Id parameters are read, Then GraphQL has its own, which says a query needs the header, and the optional one of REST names the scope without it', async () => {
    const res = await api((await harness()).app).get('/openapi.json').expect(200);
    const { CompanyIdOptional: optional, CompanyIdGraphql: graphql } = res.body.components.parameters;
    const words = (text: string) => text.replace(/\s+/g, ' ');
    expect(words(optional.description)).to.include("the user's primary company").and.not.include('default scope');
    expect(words(graphql.description)).to.include('A query needs it (`400` `BAD_REQUEST` without it)');
    for (const method of ['get', 'post']) {
      expect(res.body.paths['/graphql'][method].parameters, method).to.deep.include({ $ref: '#/components/parameters/CompanyIdGraphql' });
    }
  });

  it('When the error schemas are read, Then none is named Error (it would hide the global Error in a TypeScript SDK): ErrorBody and ValidationErrorBody', async () => {
    const res = await api((await harness()).app).get('/openapi.json').expect(200);
    const names = Object.keys(res.body.components.schemas);
    expect(names).to.include.members(['ErrorBody', 'ValidationErrorBody']);
    expect(names).not.to.include.members(['Error']);
    expect(JSON.stringify(res.body)).not.to.include('"#/components/schemas/Error"');
  });
});

describe('GET /docs', () => {
  it('When fetched, Then it is an HTML reference (Scalar) with the document inline, that loads nothing from elsewhere and calls none of Scalar\'s services', async () => {
    const h = await harness();
    const res = await api(h.app).get('/docs').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).to.include("Scalar.createApiReference('#app', {");
    expect(res.text).to.include('"operationId":"createReception"');
    expect(res.text).to.include(`"servers":[{"url":"${TEST_APP_URL}"`);
    const configuration = res.text.split("Scalar.createApiReference('#app', {")[1]!;
    for (const setting of ['withDefaultFonts: false', 'telemetry: false', 'agent: { disabled: true }', 'hideClientButton: true', "showDeveloperTools: 'never'"]) {
      expect(configuration).to.include(`\n  ${setting},`);
    }
    expect(configuration, 'no request proxy: try-it talks to this server').not.to.match(/proxyUrl|proxy:/);
    expect(res.text).not.to.match(/<script[^>]+src=/i);
    expect(res.text).not.to.match(/<link[^>]+href=["']?https?:/i);
    const csp = res.headers['content-security-policy'];
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.include("connect-src 'self'");
    expect(csp).not.to.match(/https?:/);
  });

  it("When fetched, Then the description carries the guide's chapters in the guide's order, after the document's own sections", async () => {
    const res = await api((await harness()).app).get('/docs').expect(200);
    const description: string = JSON.parse(/"description":("(?:[^"\\]|\\.)*")/.exec(res.text)![1]!);
    const titles = [...description.matchAll(/^# (.+)$/gm)].map((m) => m[1]);
    expect(titles.slice(0, 1)).to.deep.equal(['Overview']);
    expect(titles).to.include.members(['Quickstart: from a token to stock', 'Errors', 'Rate limits', 'Webhooks', 'Generating a client']);
    expect(titles.indexOf('Errors')).to.be.lessThan(titles.indexOf('Rate limits'));
    expect(description).to.include('[Rate limits](#description/rate-limits)');
  });
});
