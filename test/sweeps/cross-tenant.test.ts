/**
 * Every implemented operation with a path parameter answers 404 (never 403) for a resource of
 * another tenant: another provider's, and, for client-owned resources, the sibling client's.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { concretePath, exampleBody, implemented, operations, pathParams } from '../helpers/operations.js';
import { tenantResources } from '../helpers/tenant-resources.js';

describe('Sweep: another tenant', () => {
  let h: Harness;
  let own: World;
  let other: World;

  before(async () => {
    h = await harness();
    own = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const withIds = operations.filter((op) => pathParams(op).length > 0 && implemented(op));

  it('When the document is read, Then every implemented operation with a path parameter has a tenant resource', () => {
    expect(withIds.map((op) => op.path).filter((path) => !tenantResources[path])).to.deep.equal([]);
  });

  for (const op of withIds) {
    const resource = tenantResources[op.path];
    const send = (req: ReturnType<World['as']>['get'] extends (p: string) => infer T ? T : never) => {
      const body = exampleBody(op);
      return body === undefined ? req : req.send(body as object);
    };

    it(`When ${op.method} ${op.path} names another provider's resource, Then it answers 404`, async () => {
      const path = concretePath(op, resource!.otherProvider(other));
      const res = await send(own.as('providerAdmin').request(op.method, path)).expect(404);
      expect(res.body.message).to.match(/ was not found\.$/);
      await send(own.as('superAdmin', other.provider.id).request(op.method, path)).expect((r) => expect(r.status).to.be.below(400));
    });

    if (resource?.siblingClient) {
      it(`When ${op.method} ${op.path} names the sibling client's resource, Then it answers 404`, async () => {
        const path = concretePath(op, resource.siblingClient!(own));
        await send(own.as('admin').request(op.method, path)).expect(404);
        await send(own.as('providerAdmin').request(op.method, path)).expect((r) => expect(r.status).to.be.below(400));
      });
    }
  }
});
