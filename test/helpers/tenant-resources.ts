/**
 * For every operation with a path parameter: how to find a resource the caller must not see,
 * assembled from the resource declarations of the fixture layer (test/fixtures/registry.ts).
 * `otherProvider`: a resource of another provider's world; `siblingClient`: a resource of the
 * other client of the caller's own provider (when the resource belongs to a client). The
 * cross-tenant sweep fails for an operation that no declaration's paths cover.
 */
import type { World } from './factories.js';
import { operations, pathParams } from './operations.js';
import { resourceOfPath } from '../fixtures/registry.js';
import type { Params } from '../fixtures/resource.js';

export interface TenantResource {
  otherProvider: (other: World) => Params | Promise<Params>;
  siblingClient?: (own: World) => Params | Promise<Params>;
  /**
   * False when no caller may see the resource `otherProvider` names (an installation-wide
   * integration route, where the unseen resource is a company that is not a client).
   */
  visibleToItsOwner?: false;
  /** The parameters of one of the world's own client (what its owner reads). */
  own: (world: World) => Params | Promise<Params>;
}

function tenantResource(path: string): TenantResource | undefined {
  const fixture = resourceOfPath(path);
  if (!fixture) return undefined;
  return {
    otherProvider: (other) => fixture.unseen?.(other) ?? fixture.ownedBy(other, other.client.id),
    ...(fixture.owner !== 'provider' && !fixture.unseen ? { siblingClient: (own: World) => fixture.ownedBy(own, own.otherClient.id) } : {}),
    ...(fixture.unseen ? { visibleToItsOwner: false as const } : {}),
    own: (world) => fixture.ownedBy(world, world.client.id),
  };
}

export const tenantResources: Record<string, TenantResource> = Object.fromEntries(
  operations.filter((op) => pathParams(op).length > 0).flatMap((op) => {
    const resource = tenantResource(op.path);
    return resource ? [[op.path, resource]] : [];
  }),
);
