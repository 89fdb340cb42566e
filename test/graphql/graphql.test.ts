/** GraphQL at /graphql: the same auth, tenancy and services as REST, with limits on what one query may cost. */
import { expect } from 'chai';
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import type { Test } from 'supertest';
import { harness, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import * as build from '../../db/seeds/builders.js';

const ARTICLE_FIELDS = 'id client_3pl_id article_code name description um3pl integer_only_um3pl_quantity lot_tracked expiry_tracked barcode um3pl_barcode active created_at updated_at';

describe('POST /graphql', () => {
  let h: Harness;
  let world: World;
  let other: World;
  const query = (agent: ReturnType<World['as']>, text: string, variables?: object): Test => agent.post('/graphql').send({ query: text, variables });

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    for (let i = 1; i <= 3; i++) {
      await build.insertArticle(h.db, { company_id: world.client.id, article_code: `GQL-${i}`, description: `GraphQL article ${i}`, um3pl: 'KG', barcode: `99${i}` });
    }
  });

  it('When articles are queried, Then the client in scope sees its articles by id, with snake_case fields like REST, as application/json', async () => {
    const res = await query(world.as('viewer'), `{ articles(limit: 10) { ${ARTICLE_FIELDS} } }`).expect(200).expect('Content-Type', 'application/json; charset=utf-8');
    const rest = await world.as('viewer').get('/api/articles?per_page=100').expect(200);
    expect(res.body.data.articles).to.deep.equal([...rest.body.data].reverse());
    expect(res.body.data.articles.map((a: { article_code: string }) => a.article_code)).to.include.members(['GQL-1', 'GQL-2', 'GQL-3']);
  });

  it('When paging with after and searching, Then the next page holds higher ids and only matches', async () => {
    const first = await query(world.as('viewer'), '{ articles(limit: 2, search: "graphql ARTICLE") { id article_code } }').expect(200);
    expect(first.body.data.articles.map((a: { article_code: string }) => a.article_code)).to.deep.equal(['GQL-1', 'GQL-2']);
    const next = await query(world.as('viewer'), 'query($after: Int) { articles(limit: 2, search: "graphql", after: $after) { article_code } }', {
      after: first.body.data.articles[1].id,
    }).expect(200);
    expect(next.body.data.articles).to.deep.equal([{ article_code: 'GQL-3' }]);
  });

  it("When an article of another tenant is asked for, Then it is null; one's own is answered", async () => {
    const res = await query(world.as('viewer'), `{ mine: article(id: ${world.articles.client.id}) { article_code } theirs: article(id: ${other.articles.client.id}) { id } sibling: article(id: ${world.articles.otherClient.id}) { id } }`).expect(200);
    expect(res.body.data).to.deep.equal({ mine: { article_code: world.articles.client.code }, theirs: null, sibling: null });
  });

  it('When partners and warehouses are queried, Then they come from the same scope as REST', async () => {
    const res = await query(world.as('admin'), '{ partners(type: supplier) { id type client_3pl_id } warehouses { id company_id } }').expect(200);
    expect(res.body.data.partners).to.deep.equal([{ id: world.partners.supplier, type: 'supplier', client_3pl_id: world.client.id }]);
    expect(res.body.data.warehouses.map((w: { id: number }) => w.id)).to.deep.equal(world.warehouses);
  });

  it('When limit is out of range, Then the field fails with BAD_USER_INPUT, the problem under extensions.errors.limit', async () => {
    const res = await query(world.as('viewer'), '{ articles(limit: 101) { id } }').expect(200);
    expect(res.body.errors[0]).to.include({ message: 'The limit argument must be from 1 to 100.' });
    expect(res.body.errors[0].extensions).to.deep.include({ code: 'BAD_USER_INPUT', errors: { limit: ['The limit argument must be from 1 to 100.'] } });
  });

  it('When arguments break the rules REST has for the same parameters (an empty, blank or too long search, an empty or too long tracking number, an id below 1), Then the field fails with BAD_USER_INPUT on the argument, as REST answers 422', async () => {
    const cases: Array<[string, string, string]> = [
      ['{ articles(search: "") { id } }', 'search', 'The search argument must not be empty; leave it out instead.'],
      [`{ articles(search: "${'x'.repeat(101)}") { id } }`, 'search', 'The search argument must not be longer than 100 characters.'],
      ['{ partners(search: "") { id } }', 'search', 'The search argument must not be empty; leave it out instead.'],
      ['{ articles(search: "  ") { id } }', 'search', 'The search argument must not be empty; leave it out instead.'],
      ['{ partners(search: "\\t\\u00a0") { id } }', 'search', 'The search argument must not be empty; leave it out instead.'],
      [`{ shipments(tracking_number: "${'9'.repeat(129)}") { id } }`, 'tracking_number', 'The tracking_number argument must not be longer than 128 characters.'],
      ['{ shipments(tracking_number: "") { id } }', 'tracking_number', 'The tracking_number argument must not be empty; leave it out instead.'],
      ['{ article(id: 0) { id } }', 'id', 'The id argument must be at least 1.'],
      ['{ sales_order(id: -1) { id } }', 'id', 'The id argument must be at least 1.'],
      ['{ shipments(sales_order_id: 0) { id } }', 'sales_order_id', 'The sales_order_id argument must be at least 1.'],
      ['{ receptions(purchase_order_id: 0) { id } }', 'purchase_order_id', 'The purchase_order_id argument must be at least 1.'],
      ['{ stock(article_id: -1) { id } }', 'article_id', 'The article_id argument must be at least 1.'],
      ['{ stock_movements(warehouse_id: 0) { id } }', 'warehouse_id', 'The warehouse_id argument must be at least 1.'],
      // The feed's after is a movement's id, as REST's after (minimum 1): 0 and below are its range, not an unknown movement.
      ['{ stock_movements(after: 0) { id } }', 'after', 'The after argument must be at least 1.'],
      ['{ stock_movements(after: -5) { id } }', 'after', 'The after argument must be at least 1.'],
      ['{ articles(after: -1) { id } }', 'after', 'The after argument must be the last id seen, or 0 for the first page.'],
    ];
    for (const [text, argument, message] of cases) {
      const res = await query(world.as('admin'), text).expect(200);
      expect(res.body.errors, text).to.have.length(1);
      expect(res.body.errors[0].extensions, text).to.deep.include({ code: 'BAD_USER_INPUT', errors: { [argument]: [message] } });
    }
  });

  it('When there is no token, Then HTTP 401 with UNAUTHENTICATED', async () => {
    const res = await query(api(h.app, { company: world.client.id }), '{ articles { id } }').expect(401);
    expect(res.body).to.deep.equal({ errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  it('When a query that only introspects comes without a token or X-Company-Id, Then it answers the schema (it is public: GraphiQL shows its docs before a token is set)', async () => {
    const introspection = getIntrospectionQuery();
    const anonymous = await api(h.app).post('/graphql').send({ query: introspection, operationName: 'IntrospectionQuery' }).expect(200);
    expect(anonymous.body.errors).to.equal(undefined);
    expect(buildClientSchema(anonymous.body.data).getQueryType()?.getFields()).to.have.property('articles');
    const noCompany = await query(world.as('viewer', null), '{ __type(name: "Article") { name } __typename }').expect(200);
    expect(noCompany.body).to.deep.equal({ data: { __type: { name: 'Article' }, __typename: 'Query' } });
    const viaFragment = await query(api(h.app), 'query Q { ...Root } fragment Root on Query { __schema { queryType { name } } }').expect(200);
    expect(viaFragment.body).to.deep.equal({ data: { __schema: { queryType: { name: 'Query' } } } });
    const viaGet = await api(h.app).get(`/graphql?query=${encodeURIComponent('{ __typename }')}`).expect(200);
    expect(viaGet.body).to.deep.equal({ data: { __typename: 'Query' } });
  });

  it('When a query mixes introspection with data, or names an operation that reads data, Then without a token it is 401 and without X-Company-Id 400', async () => {
    for (const [text, operationName] of [
      ['{ __typename articles { id } }', undefined],
      ['query A { __typename } query B { articles { id } }', 'B'],
      ['{ ...F } fragment F on Query { __typename warehouses { id } }', undefined],
      ['query A { __typename } query B { articles { id } }', undefined],
      ['{ __typename', undefined],
    ] as const) {
      const anonymous = await api(h.app).post('/graphql').send({ query: text, operationName }).expect(401);
      expect(anonymous.body.errors[0].extensions.code, text).to.equal('UNAUTHENTICATED');
    }
    const noCompany = await query(world.as('viewer', null), 'query A { __typename } query B { articles { id } }').send({ operationName: 'B' }).expect(400);
    expect(noCompany.body.errors[0].extensions.code).to.equal('BAD_REQUEST');
  });

  it('When a token that is sent is not valid, Then even an introspection query answers 401', async () => {
    const res = await api(h.app, { token: 'not-a-token' }).post('/graphql').send({ query: '{ __typename }' }).expect(401);
    expect(res.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
  });

  it('When X-Company-Id is missing, Then HTTP 400 with BAD_REQUEST', async () => {
    const res = await query(world.as('viewer', null), '{ articles { id } }').expect(400);
    expect(res.body.errors[0]).to.deep.equal({ message: 'The X-Company-Id header is required.', extensions: { code: 'BAD_REQUEST' } });
  });

  it('When the company is not the caller\'s, Then HTTP 403 with FORBIDDEN', async () => {
    const res = await query(world.as('viewer', other.client.id), '{ articles { id } }').expect(403);
    expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
  });

  it('When the articles module is off, Then articles answer FORBIDDEN with HTTP 403 while warehouses still resolve', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['articles'] });
    const res = await query(off.as('viewer'), '{ articles { id } }').expect(403);
    expect(res.body.errors[0].message).to.equal(`The articles module is not active for company ${off.client.name}.`);
    expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
    await query(off.as('viewer'), '{ warehouses { id } }').expect(200);
  });

  it('When the same queries are asked again (run compiled from the second time on), Then every answer is the same, variables, errors and statuses included', async () => {
    const off = await createWorld(h.app, h.db, { modulesOff: ['articles'] });
    const asked: Array<[ReturnType<World['as']>, string, object | undefined]> = [
      [world.as('viewer'), `query Page($after: Int) { articles(limit: 2, after: $after) { ${ARTICLE_FIELDS} } warehouses { id company_id } }`, { after: 0 }],
      [world.as('viewer'), `query Page($after: Int) { articles(limit: 2, after: $after) { ${ARTICLE_FIELDS} } warehouses { id company_id } }`, { after: 1 }],
      [world.as('viewer'), '{ articles(limit: 101) { id } }', undefined],
      [world.as('viewer'), `{ mine: article(id: ${world.articles.client.id}) { article_code } theirs: article(id: ${other.articles.client.id}) { id } }`, undefined],
      [off.as('viewer'), '{ articles { id } warehouses { id } }', undefined],
    ];
    const answer = async ([agent, text, variables]: (typeof asked)[number]): Promise<[number, unknown]> => {
      const res = await query(agent, text, variables);
      return [res.status, res.body];
    };
    const first = [];
    for (const one of asked) first.push(await answer(one));
    expect(first.map(([status]) => status)).to.deep.equal([200, 200, 200, 200, 403]);
    for (let round = 0; round < 2; round++) {
      for (const [i, one] of asked.entries()) expect(await answer(one), `query ${i}, round ${round + 2}`).to.deep.equal(first[i]);
    }
  });

  it('When the query is 20 levels deep, Then it is refused with a clear error', async () => {
    let selection = 'name';
    for (let i = 0; i < 17; i++) selection = `ofType { ${selection} }`;
    const res = await query(world.as('viewer'), `{ __schema { types { fields { type { ${selection} } } } } }`).expect(200);
    expect(res.body.errors).to.deep.equal([{ message: 'Query depth limit of 15 exceeded, found 22.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }]);
    expect(res.body.data).to.equal(undefined);
  });

  it('When a query uses too many aliases, Then it is refused as a validation error with its code (not a "Syntax Error": it parses)', async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: warehouses { id }`).join(' ');
    const res = await query(world.as('viewer'), `{ ${aliases} }`).expect(200);
    expect(res.body.errors).to.deep.equal([{ message: 'Aliases limit of 15 exceeded, found 20.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }]);
  });

  // `warehouses { id }`: 4 tokens; the braces around them 2. 500 of them pass the token limit; 499
  // stay under it, but repeat one field past graphql-js's budget for checking that fields merge.
  for (const [when, repeats, message] of [
    [
      'a query has more than 2000 tokens, Then it is refused as the other limits are, not as a "Syntax Error"',
      500,
      'The query has more than 2000 tokens (each name, value and punctuation mark counts): split it into several queries, or send long values as variables.',
    ],
    [
      'a query repeats a field so often that graphql-js stops checking the fields merge ("Validation aborted."), Then the message says what to do',
      499,
      'The query repeats fields or fragments too often to be checked: ask each field once (repeats of one field answer the same).',
    ],
  ] as const) {
    it(`When ${when} (GRAPHQL_VALIDATION_FAILED)`, async () => {
      const res = await query(world.as('viewer'), `{ ${'warehouses { id } '.repeat(repeats)}}`).expect(200);
      expect(res.body).to.deep.equal({ errors: [{ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    });
  }

  it("When the variables do not fit their types or a required one is missing, Then each error has the code BAD_USER_INPUT and nothing runs", async () => {
    const text = 'query Q($l: Int!) { articles(limit: $l) { id } }';
    const wrong = await world.as('viewer').post('/graphql').send({ query: text, variables: { l: 'abc' } }).expect(200);
    expect(wrong.body.data).to.equal(undefined);
    expect(wrong.body.errors.map((e: { message: string; extensions: object }) => [e.message, e.extensions])).to.deep.equal([
      ['Variable "$l" got invalid value "abc"; Int cannot represent non-integer value: "abc"', { code: 'BAD_USER_INPUT' }],
    ]);
    const missing = await world.as('viewer').post('/graphql').send({ query: text }).expect(200);
    expect(missing.body.errors.map((e: { message: string; extensions: object }) => [e.message, e.extensions])).to.deep.equal([
      ['Variable "$l" of required type "Int!" was not provided.', { code: 'BAD_USER_INPUT' }],
    ]);
  });

  it('When the query is malformed or names an unknown field, Then the errors say so', async () => {
    const malformed = await query(world.as('viewer'), '{ articles { id ').expect(200);
    expect(malformed.body.errors[0].message).to.match(/Syntax Error/);
    const unknown = await query(world.as('viewer'), '{ articles { sku } }').expect(200);
    expect(unknown.body.errors[0].message).to.match(/Cannot query field "sku" on type "Article"/);
  });

  it('When the body is not a GraphQL request, Then it answers 422 from the document', async () => {
    const res = await world.as('viewer').post('/graphql').send({ qurey: '{ articles { id } }' }).expect(422);
    expect(res.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.errors).to.have.property('query');
  });
});

describe('GET /graphql', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it('When a browser asks without a query, Then it answers the GraphiQL page with no remote script or style', async () => {
    const res = await api(h.app).get('/graphql').set('Accept', 'text/html').expect(200).expect('Content-Type', /text\/html/);
    expect(res.text).to.include('<title>3PL GraphQL</title>');
    expect(res.text).not.to.match(/<script[^>]+src=["']?https?:/i);
    expect(res.text).not.to.match(/<link[^>]+href=["']?https?:/i);
  });

  it('When a query comes in the URL with a token and company, Then it runs like POST', async () => {
    const res = await world.as('viewer').get(`/graphql?query=${encodeURIComponent('{ warehouses { id } }')}`).expect(200);
    expect(res.body.data.warehouses.map((w: { id: number }) => w.id)).to.deep.equal(world.warehouses);
  });

  it("When the company's api module is off, Then a query in the URL answers 403 FORBIDDEN like POST, and a browser without a token still gets the page", async () => {
    const apiOff = await createWorld(h.app, h.db, { modulesOff: ['api'] });
    const path = `/graphql?query=${encodeURIComponent('{ warehouses { id } }')}`;
    const viaGet = await apiOff.as('admin').get(path).expect(403);
    const viaPost = await apiOff.as('admin').post('/graphql').send({ query: '{ warehouses { id } }' }).expect(403);
    expect(viaGet.body).to.deep.equal(viaPost.body);
    expect(viaGet.body.errors[0]).to.deep.equal({ message: `The api module is not active for company ${apiOff.client.name}.`, extensions: { code: 'FORBIDDEN' } });
    await api(h.app).get(path).set('Accept', 'text/html').expect(200).expect('Content-Type', /text\/html/);
  });

  it('When a query comes in the URL without a token or company, Then 401 or 400 as GraphQL errors', async () => {
    const path = `/graphql?query=${encodeURIComponent('{ warehouses { id } }')}`;
    const anonymous = await api(h.app).get(path).expect(401);
    expect(anonymous.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
    const noCompany = await world.as('viewer', null).get(path).expect(400);
    expect(noCompany.body.errors[0].extensions.code).to.equal('BAD_REQUEST');
  });
});
