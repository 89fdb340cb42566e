/** Every operation whose security requires a token answers 401 without one. */
import { harness, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { expect } from 'chai';
import { concretePath, errorMessage, exampleBody, operations } from '../helpers/operations.js';
import { requiresAuth } from '../../src/platform/openapi/document.js';

describe('Sweep: no token', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  for (const op of operations.filter(requiresAuth)) {
    it(`When ${op.method} ${op.path} is called without a token, Then it answers 401 Unauthenticated.`, async () => {
      const body = exampleBody(op);
      const req = api(h.app, { company: 1 }).request(op.method, concretePath(op));
      if (body !== undefined) req.send(body as object);
      const res = await req.expect(401);
      expect(errorMessage(op, res.body)).to.equal('Unauthenticated.');
      if (op.errorFormat === 'graphql') expect(res.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
      else expect(res.body).to.deep.equal({ message: 'Unauthenticated.' });
    });
  }
});
