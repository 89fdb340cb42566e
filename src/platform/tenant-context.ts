/** What a service needs to know of the request: the database, who calls, and for which companies. */
import type { Knex } from 'knex';
import type { Role } from '../kernel/access.js';
import type { CompanyScope } from '../kernel/company-scope.js';
import type { Principal } from '../kernel/identity.js';
import type { RequestAuth } from './openapi/handler-types.js';
import { InputError } from './errors.js';

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

/** The company scope of a write that needs one company (the operation's `x-company-scope` guarantees it). */
export function companyScope(ctx: TenantContext): Extract<CompanyScope, { kind: 'company' }> {
  if (ctx.scope.kind !== 'company') throw new Error('This write needs a company scope (X-Company-Id)');
  return ctx.scope;
}

/**
 * The context of an operation whose X-Company-Id must name a client company (the shared tokens of
 * the reception and master-data integrations act for one client): a provider's id is a 422 on the
 * header, which would otherwise act with the provider's modules over all its clients.
 */
export function clientContext(ctx: TenantContext, operation: string): TenantContext {
  const scope = companyScope(ctx);
  if (scope.companyType !== 'client') {
    throw InputError.field('X-Company-Id', `The X-Company-Id header of ${operation} must be the id of a client company; company ${scope.companyId} is a provider.`);
  }
  return ctx;
}

/** The user who writes, for the ledger and status history; null for an integration token. */
export function userOf(ctx: TenantContext): number | null {
  return ctx.principal.kind === 'user' ? ctx.principal.user.id : null;
}
