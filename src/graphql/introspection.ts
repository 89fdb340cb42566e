/**
 * Whether a GraphQL request only introspects the schema (`__schema`, `__type`, `__typename` at its
 * root). Such a request needs no token and no company: the schema is public (it is printed in
 * src/generated/schema.generated.graphql), and GraphiQL can show its docs before a token is set.
 */
import { Kind, parse, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { GRAPHQL_LIMITS } from './yoga.js';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

function selectedOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName === undefined) return operations.length === 1 ? operations[0] : undefined;
  return operations.find((op) => op.name?.value === operationName);
}

/** Every field at the root of a selection set only introspects, through fragments too. */
function rootIntrospects(set: SelectionSetNode, document: DocumentNode, seen: Set<string>): boolean {
  return set.selections.every((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootIntrospects(selection.selectionSet, document, seen);
    const name = selection.name.value;
    if (seen.has(name)) return true;
    seen.add(name);
    const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === name);
    return fragment?.kind === Kind.FRAGMENT_DEFINITION && rootIntrospects(fragment.selectionSet, document, seen);
  });
}

/** True when `query` parses and the operation it would run is a query that only introspects. */
export function introspectionOnly(query: unknown, operationName: unknown): boolean {
  if (typeof query !== 'string') return false;
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: GRAPHQL_LIMITS.tokens });
  } catch {
    return false;
  }
  const operation = selectedOperation(document, typeof operationName === 'string' ? operationName : undefined);
  return operation?.operation === 'query' && rootIntrospects(operation.selectionSet, document, new Set());
}
