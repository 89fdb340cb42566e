/**
 * POST /graphql and GET /graphql: the request path has already authenticated the caller (when it
 * sent a token) and resolved its company (its errors answer as GraphQL responses, x-error-format:
 * graphql); these hold a query to the token and the company unless it only introspects, and hand
 * it to yoga with that tenant context.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type GraphQLParams } from 'graphql-yoga';
import type { AppDeps } from '../platform/app-deps.js';
import { BadRequestError, InputError, UnauthenticatedError } from '../platform/errors.js';
import type { HandlerMap, RequestAuth, RequestInfo } from '../platform/openapi/handler-types.js';
import type { Schema } from '../platform/openapi/schemas.js';
import { JsonText } from '../platform/openapi/json-text.js';
import { tenantContext } from '../platform/tenant-context.js';
import { PAGE_CONTENT_SECURITY_POLICY } from '../platform/http/security-headers.js';
import { StaticBody } from '../platform/http/static-body.js';
import Negotiator from 'negotiator';
import { createGraphQLServer } from './yoga.js';
import { introspectionOnly } from './introspection.js';
import { graphqlReply, type GraphQLReply } from './graphql-result.js';

type Yoga = ReturnType<typeof createGraphQLServer>;
interface Server {
  yoga: Yoga;
  /**
   * The fetch Request yoga puts in its context for a POST. Every POST /graphql has the same URL
   * and method (the document allows no query parameters on it), and neither yoga nor our plugins
   * read its body or headers, so one immutable instance serves them all.
   */
  post: Request;
}
const servers = new WeakMap<AppDeps, Server>();

function serverFor(deps: AppDeps): Server {
  let server = servers.get(deps);
  if (!server) {
    const yoga = createGraphQLServer({ logger: deps.logger, production: deps.config.production, metrics: deps.metrics });
    server = { yoga, post: new yoga.fetchAPI.Request('http://localhost/graphql', { method: 'POST' }) };
    servers.set(deps, server);
  }
  return server;
}

/**
 * GraphiQL's page: the same for every URL (its script reads the query of the URL, and writes the
 * query being edited back into it), so it is rendered, given its ETag and compressed once, whatever
 * the URL asked; a URL per render and per compression would let anyone without a token keep the
 * server compressing 9 MB pages.
 */
let graphiqlPage: Promise<StaticBody> | undefined;

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether the client asks for the page: its Accept prefers text/html to application/json, q-values
 * weighed (a browser's navigation does; `application/json, text/html;q=0.1` does not, nor does
 * `text/html;q=0`). Between two equally welcome, the order of the Accept decides, and `*\/*` is
 * JSON.
 */
export function prefersPage(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']) === 'text/html';
}

interface YogaInput {
  deps: AppDeps;
  auth: RequestAuth | undefined;
  request: RequestInfo;
  body?: unknown;
}

/** GraphiQL's page, rendered by yoga once (see graphiqlPage). */
function graphiql(deps: AppDeps): Promise<StaticBody> {
  graphiqlPage ??= (async () => {
    const response = await serverFor(deps).yoga.fetch('http://localhost/graphql', { method: 'GET', headers: { accept: 'text/html' } }, {});
    const text = await response.text();
    if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) throw new Error(`yoga answered ${response.status} where GraphiQL's page was asked: ${text.slice(0, 200)}`);
    return new StaticBody(text, 'text/html; charset=utf-8');
  })();
  graphiqlPage.catch(() => (graphiqlPage = undefined));
  return graphiqlPage;
}

/**
 * A query in the URL as the parameters POST takes in its body: `query` is required and `variables`
 * must be a JSON object, each refused 422 on its parameter otherwise, as POST's body is by its schema.
 */
function paramsOfUrl(query: { query?: string; variables?: string; operationName?: string }): GraphQLParams {
  if (query.query === undefined) throw InputError.field('query', 'The query parameter is required: the GraphQL query to run (or ask for the GraphiQL page with Accept: text/html).');
  return { query: query.query, variables: jsonObject('variables', query.variables), operationName: query.operationName };
}

function jsonObject(name: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw InputError.field(name, `The ${name} parameter must be a JSON object, such as {"id": 1}: it is not JSON.`);
  }
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw InputError.field(name, `The ${name} parameter must be a JSON object, such as {"id": 1}.`);
  return value as Record<string, unknown>;
}

/**
 * POST (and GET's query, as its parameters): the body, already parsed and validated against the
 * document, goes straight into yoga's GraphQL pipeline (its parameter checks, parse and validation caches, the query limits, error
 * masking); graphqlReply gives the status and JSON. yoga.fetch would first
 * rebuild a fetch Request from the body and parse it again: about 300 µs more per request.
 * Answers are always application/json, as the document promises (errors of the query itself: 200).
 */
async function execute({ deps, auth, body, request }: YogaInput): Promise<GraphQLReply> {
  const { yoga, post } = serverFor(deps);
  const tenant = auth?.scope ? tenantContext({ deps, auth }) : undefined;
  let result: ExecutionResult;
  try {
    const answer = await yoga.getResultForParams(
      { params: body as GraphQLParams, request: post },
      { tenant, activeModules: auth?.activeModules, requestId: request.requestId },
    );
    if (answer === undefined || isAsyncIterable(answer)) throw new Error('yoga answered a stream where the schema has no subscription');
    result = answer;
  } catch (error) {
    // yoga's parameter checks throw GraphQL errors (the document's request schema refuses the same bodies first).
    if (!(error instanceof GraphQLError)) throw error;
    result = { errors: [error] };
  }
  return graphqlReply(yoga.fetchAPI, result);
}

/** yoga's JSON as it wrote it (see JsonText): the status it chose (with Retry-After) and the text. */
function json(reply: GraphQLReply): { status: 200; headers?: Record<string, string>; body: JsonText<Schema<'GraphQLResponse'>> } {
  return { status: reply.status as 200, ...(reply.headers ? { headers: reply.headers } : {}), body: new JsonText(reply.text) };
}

/**
 * A query needs the token and X-Company-Id (401, 400), unless it only introspects the schema: the
 * schema is public, and GraphiQL shows its docs before a token is set.
 */
function requireTenant(input: YogaInput, params: { query?: unknown; operationName?: unknown }): void {
  const company = header(input.request.headers['x-company-id']);
  if (input.auth && company !== undefined) return;
  if (introspectionOnly(params.query, params.operationName)) return;
  if (!input.auth) throw new UnauthenticatedError();
  throw new BadRequestError('The X-Company-Id header is required.');
}

export const graphqlHandlers = {
  postGraphql: async (input) => {
    requireTenant(input, input.body);
    return json(await execute(input));
  },

  getGraphql: async (input) => {
    // A browser gets GraphiQL, whatever query its URL holds (GraphiQL keeps the query it shows in
    // the URL, so a reload keeps it); any other client gets the query run as POST runs its body
    // (the request of GET and POST alike is yoga's POST: the schema has no mutation, and any
    // operation but a query is refused by validation, so a GET cannot write).
    // The same URL answers the page or JSON by Accept: a cache must tell them apart.
    const vary = { Vary: 'Accept' };
    if (prefersPage(header(input.request.headers.accept))) return { status: 200, body: await graphiql(input.deps), headers: { ...vary, 'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY } };
    const params = paramsOfUrl(input.query);
    requireTenant(input, params);
    const reply = json(await execute({ ...input, body: params }));
    return { ...reply, headers: { ...reply.headers, ...vary } };
  },
} satisfies HandlerMap;
