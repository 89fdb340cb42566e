/**
 * For every write operation of the document: a request that succeeds in a world (its path
 * parameters and body), assembled from the `writes` of the resource declarations of the fixture
 * layer (test/fixtures/registry.ts), and who sends it. The mass-assignment sweep reads every 2xx
 * body for credentials and internal columns; it fails for a write without a recipe.
 */
import type { ContractOperation, OperationId } from '../../src/platform/openapi/document.js';
import { api, type Api } from './api.js';
import type { World } from './factories.js';
import { ETSM_TEST_TOKEN, MDM_TEST_TOKEN, type Harness } from './harness.js';
import { writeRecipes } from '../fixtures/registry.js';
import type { WriteRecipe } from '../fixtures/resource.js';

export type { WriteRequest } from '../fixtures/resource.js';

/** An agent calling `op` as its caller would: a provider admin acting for the client, an integration token, or no one. */
export function callerOf(h: Harness, world: World, op: ContractOperation, token?: string): Api {
  const scheme = op.security.flat()[0];
  const company = op.companyHeader === 'absent' ? undefined : world.client.id;
  if (scheme === 'etsmToken') return api(h.app, { token: ETSM_TEST_TOKEN, company });
  if (scheme === 'mdmToken') return api(h.app, { token: MDM_TEST_TOKEN, company });
  if (scheme === 'bearerAuth') return api(h.app, { token: token ?? world.users.providerAdmin.token, company });
  return api(h.app, {});
}

export const successfulWrites: Partial<Record<OperationId, WriteRecipe>> = Object.fromEntries(writeRecipes());
