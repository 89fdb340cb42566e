/**
 * GET /graphql: a browser gets GraphiQL's page (one page, whatever the URL), any other client the
 * query of the URL run as POST runs its body; and the schema's queries-only rule.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { prefersPage } from '../../src/graphql/graphql.handlers.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GET /graphql', () => {
  let h: Harness;
  let world: World;
  const url = (params: Record<string, string>) => `/graphql?${new URLSearchParams(params).toString()}`;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When the Accept weighs JSON above HTML, Then the query runs and answers JSON, not the page', async () => {
    for (const accept of ['application/json, text/html;q=0.1', 'text/html;q=0, application/json', 'application/json', '*/*']) {
      const res = await world.as('viewer').get(url({ query: '{ warehouses { id } }' })).set('Accept', accept).expect(200).expect('Content-Type', /application\/json/);
      expect(res.body.data.warehouses.map((w: { id: number }) => w.id), accept).to.deep.equal(world.warehouses);
      expect(res.headers.vary, accept).to.match(/^Accept\b/);
    }
  });

  it("When a browser asks, with or without a query in the URL, Then it gets the one GraphiQL page (the same ETag), with no token", async () => {
    const bare = await api(h.app).get('/graphql').set('Accept', BROWSER).expect(200).expect('Content-Type', /text\/html/);
    const withQuery = await api(h.app).get(url({ query: '{ articles(limit: 1) { id } }' })).set('Accept', BROWSER).expect(200).expect('Content-Type', /text\/html/);
    const other = await api(h.app).get(url({ query: '{ warehouses { id } }', operationName: 'x' })).set('Accept', 'text/html').expect(200);
    expect(withQuery.headers.etag).to.equal(bare.headers.etag);
    expect(other.headers.etag).to.equal(bare.headers.etag);
    expect(withQuery.text).to.include('<title>3PL GraphQL</title>');
    // The same URL answers the page or JSON by Accept, and the page's encodings by Accept-Encoding.
    expect(withQuery.headers.vary).to.equal('Accept, Accept-Encoding');
  });

  it('When the variables are not JSON, or not an object, Then 422 BAD_USER_INPUT on variables (it was a masked 500)', async () => {
    for (const variables of ['{', '[1]', '"x"', '3']) {
      const res = await world.as('viewer').get(url({ query: 'query($n: Int) { warehouses(limit: $n) { id } }', variables })).expect(422);
      expect(res.body.errors[0].extensions.code, variables).to.equal('BAD_USER_INPUT');
      expect(res.body.errors[0].message, variables).to.match(/^The variables parameter must be a JSON object/);
    }
  });

  it('When variables are a JSON object, Then they are used as POST uses them', async () => {
    const res = await world.as('viewer').get(url({ query: 'query($n: Int) { warehouses(limit: $n) { id } }', variables: '{"n": 1}' })).expect(200);
    expect(res.body.data.warehouses).to.have.length(1);
  });

  it('When a client that asks for JSON sends no query, Then 422 BAD_USER_INPUT on query, as POST without one', async () => {
    const res = await world.as('viewer').get('/graphql').set('Accept', 'application/json').expect(422);
    expect(res.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
    expect(res.body.errors[0].message).to.match(/^The query parameter is required/);
  });

  it('When a mutation comes in the URL, Then it is refused as POST refuses it (no 405 for an operation the schema does not have)', async () => {
    const viaGet = await world.as('viewer').get(url({ query: 'mutation { x }' })).expect(200);
    const viaPost = await world.as('viewer').post('/graphql').send({ query: 'mutation { x }' }).expect(200);
    expect(viaGet.body).to.deep.equal(viaPost.body);
    expect(viaGet.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('POST /graphql: queries only', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  for (const operation of ['mutation M { articles { id } }', 'subscription S { articles { id } }']) {
    it(`When "${operation}" is sent, twice, Then both answers refuse it as a validation error that says writes go through REST`, async () => {
      for (let time = 0; time < 2; time++) {
        const res = await world.as('viewer').post('/graphql').send({ query: operation }).expect(200);
        expect(res.body.data).to.equal(undefined);
        expect(res.body.errors[0].extensions.code).to.equal('GRAPHQL_VALIDATION_FAILED');
        expect(res.body.errors[0].message).to.match(/^This GraphQL API only reads: it has no (mutation|subscription)s\. Send writes through the REST operations\.$/);
      }
    });
  }
});

describe('prefersPage', () => {
  it('weighs the Accept header: the page only when text/html is preferred to application/json', () => {
    expect(prefersPage(BROWSER)).to.equal(true);
    expect(prefersPage('text/html')).to.equal(true);
    expect(prefersPage('text/html, application/json')).to.equal(true);
    expect(prefersPage(undefined)).to.equal(false);
    expect(prefersPage('*/*')).to.equal(false);
    expect(prefersPage('application/json, text/html')).to.equal(false);
    expect(prefersPage('application/json, text/html;q=0.1')).to.equal(false);
    expect(prefersPage('text/html;q=0')).to.equal(false);
    expect(prefersPage('text/html;q=0, application/json')).to.equal(false);
  });
});
