/**
 * The filters GraphQL's `purchase_orders` and `sales_orders` take beside their status, as their
 * REST lists do (partner_id, internal_code, updated_since), each held to that list's rules.
 */
import { builder } from '../../platform/graphql/builder.js';
import { idArg, textArg, timeArg } from '../../platform/graphql/context.js';
import { queryParameterMaxLength, type OperationId } from '../../platform/openapi/document.js';

/** The arguments, described after the REST list `path` (`/api/sales-orders`). */
export function orderFilterArgs(path: string) {
  return builder.args((t) => ({
    partner_id: t.int({ description: 'Only the orders to this partner.' }),
    internal_code: t.string({ description: 'Only the orders with this internal code (exact).' }),
    updated_since: t.field({ type: 'DateTime', description: `Only orders updated at or after this time (inclusive), as GET ${path} takes it.` }),
  }));
}

/** The arguments as the services take them, held to the rules of the REST list `operationId` (its internal_code maxLength, read once). */
export function orderFiltersOf(operationId: OperationId) {
  const internalCodeMax = queryParameterMaxLength(operationId, 'internal_code');
  return (args: { partner_id?: number | null; internal_code?: string | null; updated_since?: string | null }): { partner_id?: number; internal_code?: string; updated_since?: string } => ({
    partner_id: idArg(args.partner_id, 'partner_id'),
    internal_code: textArg(args.internal_code, 'internal_code', internalCodeMax),
    updated_since: timeArg(args.updated_since, 'updated_since'),
  });
}
