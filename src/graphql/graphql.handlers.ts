/**
 * POST /graphql and GET /graphql: the request path has already authenticated the caller (when it
 * sent a token) and resolved its company (its errors answer as GraphQL responses, x-error-format:
 * graphql); these hold a query to the token and the company unless it only introspects, and hand
 * it to yoga with that tenant context.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type GraphQLParams } from 'graphql-yoga';
import type { AppDeps } from '../platform/app-deps.js';
import { BadRequestError, UnauthenticatedError } from '../platform/errors.js';
import type { HandlerMap, RequestAuth, RequestInfo } from '../platform/openapi/handler-types.js';
import type { Schema } from '../platform/openapi/schemas.js';
import { JsonText } from '../platform/openapi/json-text.js';
import { tenantContext } from '../platform/tenant-context.js';
import { PAGE_CONTENT_SECURITY_POLICY } from '../platform/http/security-headers.js';
import { StaticBody } from '../platform/http/static-body.js';
import { LRUCache } from 'lru-cache';
import { createGraphQLServer } from './yoga.js';
import { introspectionOnly } from './introspection.js';
import { graphqlReply, retryAfterHeader, type GraphQLReply } from './graphql-result.js';

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
 * GraphiQL's page by the URL asked (the query of the URL is filled in), made once and then
 * answered with its ETag and compressed once (static-body.ts): a few URLs at most are kept.
 */
const graphiqlPages = new LRUCache<string, StaticBody>({ max: 8 });

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

interface YogaInput {
  deps: AppDeps;
  auth: RequestAuth | undefined;
  request: RequestInfo;
  body?: unknown;
}

interface YogaReply extends GraphQLReply {
  html: boolean;
}

/** GET: yoga answers as a whole (GraphiQL's page, or a query of the URL with yoga's GET rules). */
async function executeGet({ deps, auth, request }: YogaInput): Promise<YogaReply> {
  const tenant = auth?.scope ? tenantContext({ deps, auth }) : undefined;
  const response = await serverFor(deps).yoga.fetch(
    `http://localhost${request.url}`,
    { method: 'GET', headers: { accept: header(request.headers.accept) ?? 'application/json' } },
    { tenant, activeModules: auth?.activeModules, requestId: request.requestId },
  );
  return {
    status: response.status,
    ...retryAfterHeader(response),
    html: (response.headers.get('content-type') ?? '').startsWith('text/html'),
    text: await response.text(),
  };
}

/**
 * POST: the body, already parsed and validated against the document, goes straight into yoga's
 * GraphQL pipeline (its parameter checks, parse and validation caches, the query limits, error
 * masking); graphqlReply gives the status and JSON. yoga.fetch would first
 * rebuild a fetch Request from the body and parse it again: about 300 µs more per request.
 * Answers are always application/json, as the document promises (errors of the query itself: 200).
 */
async function executePost({ deps, auth, body, request }: YogaInput): Promise<YogaReply> {
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
  return { ...(await graphqlReply(yoga.fetchAPI, result)), html: false };
}

/** yoga's JSON as it wrote it (see JsonText): the status it chose (with Retry-After) and the text. */
function json(reply: YogaReply): { status: 200; headers?: Record<string, string>; body: JsonText<Schema<'GraphQLResponse'>> } {
  if (reply.html) throw new Error('yoga answered HTML where the document promises JSON');
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
    return json(await executePost(input));
  },

  getGraphql: async (input) => {
    // A browser asking for the page gets GraphiQL (with the query of the URL filled in); a query
    // asked for as data is held to POST's rules.
    const wantsPage = /text\/html/.test(header(input.request.headers.accept) ?? '');
    if (input.query.query !== undefined && !wantsPage) requireTenant(input, input.query);
    const page = { 'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY };
    const known = wantsPage ? graphiqlPages.get(input.request.url) : undefined;
    if (known) return { status: 200, body: known, headers: page };
    const reply = await executeGet(input);
    if (!reply.html) return json(reply);
    const body = new StaticBody(reply.text, 'text/html; charset=utf-8');
    graphiqlPages.set(input.request.url, body);
    return { status: 200, body, headers: page };
  },
} satisfies HandlerMap;
