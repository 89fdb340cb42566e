/** What a service needs to know of the request: the database, who calls, and for which companies. */
import type { Knex } from 'knex';
import type { Role } from '../kernel/access.js';
import type { CompanyScope } from '../kernel/company-scope.js';
import type { Principal, RequestAuth } from './openapi/handler-types.js';

export interface TenantContext {
  readonly db: Knex;
  readonly scope: CompanyScope;
  readonly principal: Principal;
  readonly role: Role;
}

/** The tenant context of an operation that takes X-Company-Id (the request path resolved it). */
export function tenantContext(input: { deps: { db: Knex }; auth: RequestAuth | undefined }): TenantContext {
  const { auth } = input;
  if (!auth?.scope || !auth.role) throw new Error('tenantContext() on an operation without a company scope');
  return { db: input.deps.db, scope: auth.scope, principal: auth.principal, role: auth.role };
}
