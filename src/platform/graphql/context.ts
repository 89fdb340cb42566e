/** What every resolver sees: the tenant context of the request and the modules active for it. */
import { GraphQLError } from 'graphql';
import type { ModuleSlug } from '../../kernel/access.js';
import type { TenantContext } from '../tenant-context.js';

export interface GraphQLContext {
  readonly tenant: TenantContext;
  readonly activeModules: ReadonlySet<string>;
  /** The request's id (error log lines carry it). */
  readonly requestId?: string;
}

/** A field that needs a content module answers FORBIDDEN (HTTP 403) when the company has it off. */
export function requireModule(ctx: GraphQLContext, module: ModuleSlug): void {
  if (ctx.activeModules.has(module)) return;
  const company = ctx.tenant.scope.kind === 'company' ? ctx.tenant.scope.companyName : 'all companies';
  throw new GraphQLError(`The ${module} module is not active for company ${company}.`, {
    extensions: { code: 'FORBIDDEN', http: { status: 403 } },
  });
}

/** A page size argument: 1 to `max`, `fallback` when absent; else BAD_USER_INPUT. */
export function pageLimit(limit: number | null | undefined, fallback: number, max: number): number {
  const value = limit ?? fallback;
  if (value < 1 || value > max) {
    throw new GraphQLError(`The limit argument must be from 1 to ${max}.`, { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return value;
}
