/** requestHash: the fingerprint an Idempotency-Key is bound to. */
import { expect } from 'chai';
import { requestHash } from '../../../src/platform/idempotency/idempotency.js';

const OP = 'createArticle';
const PATH = '/api/articles';

describe('requestHash', () => {
  it('When hashed, Then it is a 64-character hex SHA-256 and the same input gives the same hash', () => {
    const body = { article_code: 'A', description: 'd', um3pl: 'BUC' };
    expect(requestHash(OP, PATH, body)).to.match(/^[0-9a-f]{64}$/);
    expect(requestHash(OP, PATH, body)).to.equal(requestHash(OP, PATH, { ...body }));
  });

  it('When object keys come in another order, at any depth, Then the hash is the same', () => {
    const a = { b: 1, a: { y: [{ q: 1, p: 2 }], x: 'x' }, Z: null };
    const b = { Z: null, a: { x: 'x', y: [{ p: 2, q: 1 }] }, b: 1 };
    expect(requestHash(OP, PATH, a)).to.equal(requestHash(OP, PATH, b));
  });

  it('When a value, an array order, the operation or the path differs, Then the hash differs', () => {
    const base = requestHash(OP, PATH, { items: [1, 2], code: 'A' });
    expect(requestHash(OP, PATH, { items: [2, 1], code: 'A' })).to.not.equal(base);
    expect(requestHash(OP, PATH, { items: [1, 2], code: 'B' })).to.not.equal(base);
    expect(requestHash(OP, PATH, { items: [1, 2], code: 'A', extra: true })).to.not.equal(base);
    expect(requestHash(OP, PATH, { items: ['1', 2], code: 'A' })).to.not.equal(base);
    expect(requestHash('createSalesOrder', PATH, { items: [1, 2], code: 'A' })).to.not.equal(base);
    expect(requestHash(OP, '/api/other', { items: [1, 2], code: 'A' })).to.not.equal(base);
  });

  it('When the body is absent, Then it hashes like null, and unlike an empty object', () => {
    expect(requestHash(OP, PATH, undefined)).to.equal(requestHash(OP, PATH, null));
    expect(requestHash(OP, PATH, {})).to.not.equal(requestHash(OP, PATH, null));
  });
});
