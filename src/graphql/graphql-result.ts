/**
 * A GraphQL result as the answer to POST /graphql: the HTTP status, headers and the JSON text. yoga's
 * result processor gives the status and headers (from the errors' `http` extensions: 403 for a module
 * that is off, 503 with Retry-After for a database outage) and,
 * for a result without errors, the text, written by the serializer graphql-jit compiled for the
 * query. A result with errors is written here: yoga's serializer rebuilds each error from its AST
 * nodes, which graphql-jit's errors do not carry, and would drop their `locations`.
 */
import type { ExecutionResult, GraphQLError, GraphQLFormattedError } from 'graphql';
import { processRegularResult } from 'graphql-yoga';

type FetchAPI = Parameters<typeof processRegularResult>[1];

/** The extensions a client sees: yoga's internal `http` and `unexpected` are not for it. */
function publicExtensions(extensions: Record<string, unknown> | undefined): { extensions?: Record<string, unknown> } {
  if (extensions === undefined) return {};
  const { http: _http, unexpected: _unexpected, ...rest } = extensions;
  return Object.keys(rest).length > 0 ? { extensions: rest } : {};
}

function publicError(error: GraphQLError): GraphQLFormattedError {
  return {
    message: error.message,
    ...(error.locations?.length ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...publicExtensions(error.extensions),
  };
}

export interface GraphQLReply {
  status: number;
  /** Retry-After, when an error gives one. */
  headers?: Record<string, string>;
  text: string;
}

/** Retry-After of yoga's response, the one header an error of ours sets. */
export function retryAfterHeader(response: Response): { headers?: Record<string, string> } {
  const retryAfter = response.headers.get('retry-after');
  return retryAfter === null ? {} : { headers: { 'Retry-After': retryAfter } };
}

/**
 * A query refused with 403 (a field whose module is off for the company) answers no data, whatever
 * its other fields found: a nullable field's refusal (`return(id)`) would otherwise leave the rest
 * of the query's data beside the 403.
 */
export async function graphqlReply(fetchAPI: FetchAPI, result: ExecutionResult): Promise<GraphQLReply> {
  const response = processRegularResult(result, fetchAPI, 'application/json');
  const text = await response.text();
  if (!result.errors?.length) return { status: response.status, text };
  const { errors, extensions, ...rest } = result;
  if (response.status === 403 && rest.data !== undefined) rest.data = null;
  return { status: response.status, ...retryAfterHeader(response), text: JSON.stringify({ errors: errors.map(publicError), ...rest, ...publicExtensions(extensions) }) };
}
