/** The GraphQL operation-name label of /metrics stays bounded whatever names clients send. */
import { expect } from 'chai';
import { boundedOperationNames } from '../../../src/graphql/observability.js';

describe('GraphQL metrics: bounded operation names', () => {
  it('When an operation has no name, Then it counts as anonymous; a name that is not a GraphQL name counts as unknown', () => {
    const label = boundedOperationNames(3);
    expect([label(undefined), label(null), label(''), label('bad name'), label('x'.repeat(65))]).to.deep.equal(['anonymous', 'anonymous', 'anonymous', 'unknown', 'unknown']);
  });

  it('When more distinct names than the bound arrive, Then the first ones keep their label and every later one is other', () => {
    const label = boundedOperationNames(2);
    expect(['StockCheck', 'Articles', 'Third', 'StockCheck', 'Fourth', 'Articles'].map(label)).to.deep.equal(['StockCheck', 'Articles', 'other', 'StockCheck', 'other', 'Articles']);
  });
});
