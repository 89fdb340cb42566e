/**
 * The only way repositories filter tenant rows: by the client companies or the provider of the
 * request's company scope. A repository that reads tenant data calls one of these.
 */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';

/** Rows owned by a client company in scope (`column` holds the client's id). */
export function whereClientInScope<T extends Knex.QueryBuilder>(query: T, scope: CompanyScope, column: string): T {
  if (scope.kind === 'all') return query;
  return query.whereIn(column, scope.clientIds as number[]) as T;
}

/** Rows owned by the provider in scope (`column` holds the provider's id). */
export function whereProviderInScope<T extends Knex.QueryBuilder>(query: T, scope: CompanyScope, column: string): T {
  if (scope.kind === 'all') return query;
  return query.where(column, scope.providerId) as T;
}
