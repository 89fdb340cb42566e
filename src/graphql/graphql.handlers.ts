/**
 * POST /graphql and GET /graphql: the request path has already authenticated the caller and
 * resolved its company (its errors answer as GraphQL responses, x-error-format: graphql); these
 * hand the request to yoga with that tenant context.
 */
import type { AppDeps } from '../platform/app-deps.js';
import { BadRequestError, UnauthenticatedError } from '../platform/errors.js';
import type { HandlerMap, RequestAuth, RequestInfo } from '../platform/openapi/handler-types.js';
import type { Schema } from '../platform/openapi/schemas.js';
import { tenantContext } from '../platform/tenant-context.js';
import { createGraphQLServer } from './yoga.js';

type Yoga = ReturnType<typeof createGraphQLServer>;
const servers = new WeakMap<AppDeps, Yoga>();

function serverFor(deps: AppDeps): Yoga {
  let server = servers.get(deps);
  if (!server) {
    server = createGraphQLServer({ logger: deps.logger, production: deps.config.production });
    servers.set(deps, server);
  }
  return server;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

interface YogaInput {
  deps: AppDeps;
  auth: RequestAuth | undefined;
  request: RequestInfo;
  body?: unknown;
}

interface YogaReply {
  status: number;
  html: boolean;
  text: string;
}

async function execute({ deps, auth, request, body }: YogaInput, method: 'GET' | 'POST'): Promise<YogaReply> {
  const tenant = auth?.scope ? tenantContext({ deps, auth }) : undefined;
  const response = await serverFor(deps).fetch(
    `http://localhost${request.url}`,
    {
      method,
      headers: { accept: header(request.headers.accept) ?? 'application/json', 'content-type': 'application/json' },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    },
    { tenant, activeModules: auth?.activeModules },
  );
  return { status: response.status, html: (response.headers.get('content-type') ?? '').startsWith('text/html'), text: await response.text() };
}

function json(reply: YogaReply): { status: 200; body: Schema<'GraphQLResponse'> } {
  if (reply.html) throw new Error('yoga answered HTML where the document promises JSON');
  return { status: reply.status as 200, body: JSON.parse(reply.text) as Schema<'GraphQLResponse'> };
}

export const graphqlHandlers = {
  postGraphql: async (input) => json(await execute(input, 'POST')),

  getGraphql: async (input) => {
    // A browser asking for the page gets GraphiQL (with the query of the URL filled in); a query
    // asked for as data needs the token and the company like POST.
    const wantsPage = /text\/html/.test(header(input.request.headers.accept) ?? '');
    if (input.query.query !== undefined && !wantsPage) {
      if (!input.auth) throw new UnauthenticatedError();
      if (header(input.request.headers['x-company-id']) === undefined) throw new BadRequestError('The X-Company-Id header is required.');
    }
    const reply = await execute(input, 'GET');
    return reply.html ? { status: 200, body: reply.text, contentType: 'text/html' } : json(reply);
  },
} satisfies HandlerMap;
