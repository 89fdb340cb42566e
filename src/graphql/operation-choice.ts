/**
 * Which operation of the document runs, said as the client fixes it. yoga refuses a document whose
 * operation cannot be chosen with "Could not determine what operation to execute.", naming neither
 * the name it was given nor the names it has; this plugin runs first (user plugins' parse hooks come
 * before yoga's) and says which: an `operationName` the document does not have (with the names it
 * has), several operations and no `operationName`, or no operation at all. Same code and status
 * as yoga's (OPERATION_RESOLUTION_FAILURE, 400).
 */
import { getOperationAST, GraphQLError, Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { quoted } from '../kernel/text.js';

/** Why no operation of `document` is the one to run, or undefined when one is. */
export function operationChoiceProblem(document: DocumentNode, operationName: string | null | undefined): string | undefined {
  if (getOperationAST(document, operationName) !== null) return undefined;
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const names = operations.map((op) => op.name?.value ?? '(anonymous)').join(', ');
  if (operations.length === 0) return 'The document has no operation: send a query ({ … } or query Name { … }); fragments alone do not run.';
  // graphql-js looks for an operation named "" (none has that name): an empty operationName is not an absent one.
  if (operationName === '') return `The operationName is empty: leave it out${operations.length === 1 ? '' : `, or send the name of the one to run (${names})`}.`;
  if (operationName) return `The document has no operation named ${quoted(operationName)}; its operations: ${names}.`;
  if (operations.some((op) => !op.name)) return `The document has ${operations.length} operations (${names}): an anonymous operation must be the only one; name each and send operationName.`;
  return `The document has ${operations.length} operations (${names}): send the name of the one to run as operationName.`;
}

export function useOperationChoice(): Plugin {
  return {
    onParse: () => ({ result, context }) => {
      if (result instanceof Error || !result) return;
      const operationName = (context as { params?: { operationName?: string | null } }).params?.operationName;
      const problem = operationChoiceProblem(result as DocumentNode, operationName);
      if (problem) throw new GraphQLError(problem, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } });
    },
  };
}
