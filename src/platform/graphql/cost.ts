/**
 * What a GraphQL query may cost, counted before it runs (Pothos' complexity plugin does the
 * counting; the numbers are ours). Each field selected costs 1, and a list multiplies what is
 * selected under it by the rows it may answer: its `limit` argument (the default page, 25, when it
 * is absent), or, for a list without one (the lines of a document, up to 500 each; a sales order's
 * shipments), 50. The history of a sales order is counted at its 5 statuses at most
 * (sales-orders.graphql.ts).
 *
 * The limit admits a page of 100 sales orders with every field of the orders, their lines, their
 * history and their shipments (64,601; 39,501 without the shipments), two pages of 100 orders with
 * every field but the shipments and 5 of the lines (29,501 each) and 15 aliases of 100 articles
 * with every field (1,301 each), and refuses 5 aliases of 100 orders with 3 fields of their
 * lines (15,101 each): no query reads more than a few REST pages would.
 */
import { GraphQLError, Kind, getNullableType, isListType, validate, type DocumentNode, type ExecutionArgs, type GraphQLField } from 'graphql';
import { createComplexityRule, type FieldComplexityValue } from '@pothos/plugin-complexity';
import type { Plugin } from 'graphql-yoga';

export const MAX_QUERY_COST = 75_000;
/** The rows of a list whose field has no `limit` argument. */
export const UNPAGED_LIST_ROWS = 50;
/** The page a `limit` argument means when it is absent (pageLimit's fallback in every list query). */
export const DEFAULT_PAGE_ROWS = 25;

/** The cost of a field: 1, and for a list the rows its selection is multiplied by. */
export function fieldCost<Context>(args: Record<string, unknown>, _ctx: Context, field: GraphQLField<unknown, Context>): FieldComplexityValue {
  if (!isListType(getNullableType(field.type))) return 1;
  if (!field.args.some((arg) => arg.name === 'limit')) return { field: 1, multiplier: UNPAGED_LIST_ROWS };
  return { field: 1, multiplier: typeof args.limit === 'number' ? args.limit : DEFAULT_PAGE_ROWS };
}

function tooCostly(cost: number): GraphQLError {
  return new GraphQLError(
    `The query costs ${cost}, more than the limit of ${MAX_QUERY_COST}: each field counts 1 and each list multiplies what it selects by its limit ` +
      `(${DEFAULT_PAGE_ROWS} when absent; ${UNPAGED_LIST_ROWS} for a list without a limit: the lines of a document, an order's shipments). Ask for fewer rows or fields, or split the query.`,
    { extensions: { code: 'QUERY_TOO_COSTLY', cost: { actual: cost, max: MAX_QUERY_COST } } },
  );
}

/**
 * An error of counting: the variables do not fit their types (`"abc"` for an `Int`, a required one
 * missing). graphql-js gives it no code; it is the client's input, and the contract gives every
 * error a code.
 */
function asInputError(error: GraphQLError): GraphQLError {
  if (error.extensions.code !== undefined) return error;
  const { nodes, source, positions, originalError, extensions } = error;
  return new GraphQLError(error.message, { nodes, source, positions, originalError, extensions: { ...extensions, code: 'BAD_USER_INPUT' } });
}

/** The cost of the operation `operationName` of `document` with these variables, or the errors of counting it. */
function countCost(args: ExecutionArgs): { cost: number } | { errors: readonly GraphQLError[] } {
  let cost = 0;
  const rule = createComplexityRule({
    variableValues: (args.variableValues ?? {}) as Record<string, unknown>,
    operationName: args.operationName ?? undefined,
    context: args.contextValue as object,
    validate: ({ complexity }) => {
      cost = Math.max(cost, complexity);
    },
  });
  const errors = validate(args.schema, args.document, [rule]);
  return errors.length > 0 ? { errors: errors.map(asInputError) } : { cost };
}

function usesVariables(document: DocumentNode): boolean {
  return document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && (definition.variableDefinitions?.length ?? 0) > 0);
}

/**
 * Refuses a query over MAX_QUERY_COST before it runs. The cost of a query without variables is
 * kept with its parsed document (yoga's cache hands the same one to each request that asks it), so
 * the queries an integration repeats are counted once; with variables (a `limit: $n`) it is
 * counted for each request.
 */
export function useQueryCostLimit(): Plugin {
  const known = new WeakMap<DocumentNode, Map<string, number>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const cacheable = !usesVariables(args.document);
      const operation = args.operationName ?? '';
      let cost = cacheable ? known.get(args.document)?.get(operation) : undefined;
      if (cost === undefined) {
        const counted = countCost(args);
        if ('errors' in counted) return setResultAndStopExecution({ errors: counted.errors });
        cost = counted.cost;
        if (cacheable) known.set(args.document, (known.get(args.document) ?? new Map<string, number>()).set(operation, cost));
      }
      if (cost > MAX_QUERY_COST) setResultAndStopExecution({ errors: [tooCostly(cost)] });
    },
  };
}
