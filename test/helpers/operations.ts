/** The document's operations as the sweeps use them: concrete paths and example bodies. */
import { listOperations, readDocument, type ContractOperation } from '../../src/platform/openapi/document.js';

export const operations: readonly ContractOperation[] = listOperations(readDocument());

export function pathParams(op: ContractOperation): string[] {
  return [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/**
 * The operation's path with its parameters filled in (every path parameter 1 unless given); the
 * given parameters that are query parameters of the operation go into the query (others, which a
 * resource declaration may give for another path of its resource, are left out).
 */
export function concretePath(op: ContractOperation, params: Record<string, string | number> = {}): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? 1)));
  const inQuery = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const query = new URLSearchParams(Object.entries(params).filter(([name]) => inQuery.has(name)).map(([name, value]) => [name, String(value)]));
  return query.size > 0 ? `${path}?${query.toString()}` : path;
}

/** The required query parameters of the operation, each with the example the document gives it (`at` of GET /api/stock/as-of). */
export function requiredQueryExamples(op: ContractOperation): Record<string, string | number> {
  const required = op.parameters.filter((p) => p.in === 'query' && p.required);
  return Object.fromEntries(required.map((p) => [p.name, exampleOfQueryParameter(op, p.name)]));
}

/** The document's example of one query parameter of the operation, required or not. */
export function exampleOfQueryParameter(op: ContractOperation, name: string): string | number {
  const parameter = op.parameters.find((p) => p.in === 'query' && p.name === name) as { example?: unknown; schema?: { example?: unknown } } | undefined;
  const example = parameter?.example ?? parameter?.schema?.example;
  if (example === undefined) throw new Error(`${op.operationId}: the query parameter ${name} has no example in the document`);
  return example as string | number;
}

/** The example request body the document gives, if the operation takes a body. */
export function exampleBody(op: ContractOperation): unknown {
  const body = (op.raw as { requestBody?: { content?: Record<string, { example?: unknown; schema?: { $ref?: string } }> } }).requestBody;
  const media = body?.content?.['application/json'];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const ref = media.schema?.$ref?.replace('#/components/schemas/', '');
  const schema = ref ? (readDocument().components as { schemas: Record<string, { example?: unknown }> }).schemas[ref] : undefined;
  return schema?.example ?? {};
}

export function usesBearerToken(op: ContractOperation): boolean {
  return op.security.some((alternative) => alternative.includes('bearerAuth'));
}

/** The error message of a response body, REST (`message`) or GraphQL (`errors[0].message`). */
export function errorMessage(op: ContractOperation, body: { message?: string; errors?: unknown }): string | undefined {
  if (op.errorFormat === 'graphql') return (body.errors as Array<{ message: string }> | undefined)?.[0]?.message;
  return body.message;
}
