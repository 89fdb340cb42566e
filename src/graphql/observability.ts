/**
 * What the GraphQL server tells the operators: every operation it runs, counted by name for
 * /metrics (names bounded so a client cannot grow the label set), and every error it masks
 * (an unexpected one: a bug, not a client's mistake) logged at error with the request's id, the
 * key the access line of the same request carries.
 */
import { getOperationAST, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Metrics } from '../platform/metrics.js';
import type { GraphQLContext } from '../platform/graphql/context.js';

/** Distinct operation names counted under their own label; later ones count as `other`. */
export const MAX_OPERATION_NAMES = 50;
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** The label of an operation's name: itself, `anonymous`, `unknown` (unusable), or `other` past the bound. */
export function boundedOperationNames(max = MAX_OPERATION_NAMES): (name: string | null | undefined) => string {
  const seen = new Set<string>();
  return (name) => {
    if (name === undefined || name === null || name === '') return 'anonymous';
    if (!NAME.test(name)) return 'unknown';
    if (seen.has(name)) return name;
    if (seen.size >= max) return 'other';
    seen.add(name);
    return name;
  };
}

export function useOperationMetrics(metrics: Pick<Metrics, 'graphqlOperation'>): Plugin<GraphQLContext> {
  const label = boundedOperationNames();
  return {
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      metrics.graphqlOperation(operation ? label(operation.name?.value) : 'unknown');
    },
  };
}

/** The errors of a result that masking will turn into INTERNAL_SERVER_ERROR (`unexpected` decides). */
function unexpectedErrors(result: ExecutionResult, unexpected: (error: unknown) => boolean): unknown[] {
  return (result.errors ?? []).map((error) => error.originalError ?? error).filter(unexpected);
}

/**
 * Logs the unexpected errors of each execution with the request's id. yoga registers its masking
 * after the application's plugins, so this sees the errors before they are masked; `logged` tells
 * yoga's own log of the same errors (which has no request) apart.
 */
export function useErrorLog(logger: Logger, unexpected: (error: unknown) => boolean): { plugin: Plugin<GraphQLContext>; logged(error: unknown): boolean } {
  const logged = new WeakSet<object>();
  const seen = (error: unknown): boolean =>
    typeof error === 'object' && error !== null && (logged.has(error) || seen((error as { originalError?: unknown }).originalError));
  return {
    logged: seen,
    plugin: {
      onExecute({ args }) {
        const { requestId } = args.contextValue;
        return {
          onExecuteDone({ result }) {
            if (isAsyncIterable(result)) return;
            for (const err of unexpectedErrors(result, unexpected)) {
              if (typeof err === 'object' && err !== null) logged.add(err);
              logger.error({ err, requestId }, 'graphql query failed');
            }
          },
        };
      },
    },
  };
}
