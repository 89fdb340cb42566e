/**
 * A document whose operation cannot be chosen: the answer says why (the name it was given and the
 * names it has, several operations without operationName, fragments alone), 400 with
 * OPERATION_RESOLUTION_FAILURE, by POST and by GET.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';

describe('POST /graphql: choosing the operation', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const TWO = 'query Stock { warehouses { id } } query Items { articles(limit: 1) { id } }';

  for (const [when, query, operationName, message] of [
    ['operationName names no operation of the document', TWO, 'Articles', 'The document has no operation named "Articles"; its operations: Stock, Items.'],
    ['the document has two operations and no operationName', TWO, undefined, 'The document has 2 operations (Stock, Items): send the name of the one to run as operationName.'],
    [
      'an anonymous operation is one of two',
      '{ warehouses { id } } query Items { articles(limit: 1) { id } }',
      undefined,
      'The document has 2 operations ((anonymous), Items): an anonymous operation must be the only one; name each and send operationName.',
    ],
    ['the document has only a fragment', 'fragment F on Query { warehouses { id } }', undefined, 'The document has no operation: send a query ({ … } or query Name { … }); fragments alone do not run.'],
    ['a single anonymous query is sent with an operationName', '{ warehouses { id } }', 'Stock', 'The document has no operation named "Stock"; its operations: (anonymous).'],
    ['operationName is empty and the document has one operation', 'query Stock { warehouses { id } }', '', 'The operationName is empty: leave it out.'],
    ['operationName is empty and the document has two', TWO, '', 'The operationName is empty: leave it out, or send the name of the one to run (Stock, Items).'],
  ] as const) {
    it(`When ${when}, Then 400 OPERATION_RESOLUTION_FAILURE saying so`, async () => {
      const res = await world.as('viewer').post('/graphql').send({ query, operationName }).expect(400);
      expect(res.body).to.deep.equal({ errors: [{ message, extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }] });
    });
  }

  it('When operationName names one of the operations, Then that one runs, by POST and by GET', async () => {
    const posted = await world.as('viewer').post('/graphql').send({ query: TWO, operationName: 'Stock' }).expect(200);
    expect(posted.body.data.warehouses.map((w: { id: number }) => w.id)).to.deep.equal(world.warehouses);
    const got = await world.as('viewer').get(`/graphql?${new URLSearchParams({ query: TWO, operationName: 'Nope' }).toString()}`).expect(400);
    expect(got.body.errors[0].message).to.equal('The document has no operation named "Nope"; its operations: Stock, Items.');
  });
});
