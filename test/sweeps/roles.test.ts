/**
 * Every write answers 403 to a viewer, and every admin-only operation to an operator, before its
 * body is read (403 precedes 422).
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { concretePath, errorMessage, operations, usesBearerToken } from '../helpers/operations.js';

describe('Sweep: roles', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const writes = operations.filter((op) => usesBearerToken(op) && (op.role === 'operator' || op.role === 'admin'));
  it('When the document is read, Then it has writes to sweep', () => {
    expect(writes.length).to.be.at.least(15);
  });

  for (const op of writes) {
    it(`When a viewer calls ${op.method} ${op.path}, Then it answers 403 naming the role needed`, async () => {
      const res = await world.as('viewer').request(op.method, concretePath(op)).send({}).expect(403);
      expect(errorMessage(op, res.body)).to.equal(`This action needs the ${op.role} role; your role in company ${world.client.name} is viewer.`);
    });
  }

  for (const op of writes.filter((w) => w.role === 'admin')) {
    it(`When an operator calls ${op.method} ${op.path}, Then it answers 403`, async () => {
      const res = await world.as('operator').request(op.method, concretePath(op)).send({}).expect(403);
      expect(errorMessage(op, res.body)).to.include('needs the admin role');
    });
  }
});
