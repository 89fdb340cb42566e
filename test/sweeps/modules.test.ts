/**
 * Every operation that needs a module answers 403 naming it when the company in scope has it off:
 * content modules (x-module) and the api module every data route needs.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { concretePath, errorMessage, operations, usesBearerToken } from '../helpers/operations.js';
import { MODULES, type ModuleSlug } from '../../src/kernel/access.js';

const CONTENT_MODULES = MODULES.map((m) => m.slug).filter((slug): slug is Exclude<ModuleSlug, 'api'> => slug !== 'api');

describe('Sweep: modules', () => {
  let h: Harness;
  let contentOff: World;
  let apiOff: World;

  before(async () => {
    h = await harness();
    contentOff = await createWorld(h.app, h.db, { modulesOff: [...CONTENT_MODULES] });
    apiOff = await createWorld(h.app, h.db, { modulesOff: ['api'] });
  });

  const guarded = operations.filter((op) => usesBearerToken(op) && op.module !== 'none');

  for (const op of guarded.filter((g) => g.module !== 'api')) {
    it(`When the ${op.module} module is off, Then ${op.method} ${op.path} answers 403 naming it`, async () => {
      const res = await contentOff.as('admin').request(op.method, concretePath(op)).send({}).expect(403);
      expect(errorMessage(op, res.body)).to.equal(`The ${op.module} module is not active for company ${contentOff.client.name}.`);
    });
  }

  for (const op of guarded) {
    it(`When the api module is off, Then ${op.method} ${op.path} answers 403 naming it`, async () => {
      const res = await apiOff.as('admin').request(op.method, concretePath(op)).send({}).expect(403);
      expect(errorMessage(op, res.body)).to.equal(`The api module is not active for company ${apiOff.client.name}.`);
    });
  }
});
