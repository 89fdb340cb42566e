/**
 * The schema has queries only: writes go through REST. A mutation or a subscription is refused by
 * validation, before anything runs, with GRAPHQL_VALIDATION_FAILED and a message that says where
 * writes go. Without it graphql-js answered an error with no code, and graphql-jit, compiling the
 * same text when it was asked again, threw an error that was masked as INTERNAL_SERVER_ERROR and
 * logged as a fault of ours. It also keeps GET from writing: its query runs as POST's does.
 */
import { GraphQLError, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const queriesOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === 'query') return;
    context.reportError(
      new GraphQLError(`This GraphQL API only reads: it has no ${node.operation}s. Send writes through the REST operations.`, {
        nodes: node,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    );
  },
});

export function useQueriesOnly(): Plugin {
  return { onValidate: ({ addValidationRule }) => addValidationRule(queriesOnly) };
}
