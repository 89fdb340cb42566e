/**
 * Every operation with a path parameter answers 404 (never 403) for a resource of
 * another tenant: another provider's, and, for client-owned resources, the sibling client's.
 */
import { expect } from 'chai';
import type { Test } from 'supertest';
import { harness, type Harness, ETSM_TEST_TOKEN, MDM_TEST_TOKEN } from '../helpers/harness.js';
import { api, type Api } from '../helpers/api.js';
import { createWorld, type Actor, type World } from '../helpers/factories.js';
import type { ContractOperation } from '../../src/platform/openapi/document.js';
import { concretePath, exampleBody, operations, pathParams } from '../helpers/operations.js';
import { tenantResources } from '../helpers/tenant-resources.js';
import { registryProblems } from '../fixtures/registry.js';

describe('Sweep: another tenant', () => {
  let h: Harness;
  let own: World;
  let other: World;

  before(async () => {
    h = await harness();
    own = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const withIds = operations.filter((op) => pathParams(op).length > 0);

  it('When the document is read, Then every operation with a path parameter is covered by the paths of a resource declaration (test/fixtures/registry.ts), and no two declarations claim the same path or write', () => {
    expect(withIds.map((op) => op.path).filter((path) => !tenantResources[path])).to.deep.equal([]);
    expect(registryProblems()).to.deep.equal([]);
  });

  /** The caller of the operation acting for `company`: a user of `world`, or the integration's shared token. */
  const caller = (op: ContractOperation, world: World, actor: Actor, company?: number): Api => {
    const scheme = op.security.flat()[0];
    if (scheme === 'mdmToken' || scheme === 'etsmToken') {
      return api(h.app, { token: scheme === 'mdmToken' ? MDM_TEST_TOKEN : ETSM_TEST_TOKEN, company: company ?? world.client.id });
    }
    return world.as(actor, company);
  };

  for (const op of withIds) {
    const resource = tenantResources[op.path];
    const send = (req: Test): Test => {
      const body = exampleBody(op);
      return body === undefined ? req : req.send(body as object);
    };
    const succeeds = (res: { status: number }) => expect(res.status).to.be.below(400);

    it(`When ${op.method} ${op.path} names another provider's resource, Then it answers 404`, async () => {
      const path = concretePath(op, await resource!.otherProvider(other));
      const res = await send(caller(op, own, 'providerAdmin', own.client.id).request(op.method, path)).expect(404);
      expect(res.body.message).to.match(/ was not found\.$/);
      if (resource!.visibleToItsOwner !== false) {
        await send(caller(op, other, 'superAdmin', other.client.id).request(op.method, path)).expect(succeeds);
      }
    });

    if (resource?.siblingClient) {
      it(`When ${op.method} ${op.path} names the sibling client's resource, Then it answers 404`, async () => {
        const path = concretePath(op, await resource.siblingClient!(own));
        await send(caller(op, own, 'admin', own.client.id).request(op.method, path)).expect(404);
        await send(caller(op, own, 'providerAdmin', own.otherClient.id).request(op.method, path)).expect(succeeds);
      });
    }
  }
});
