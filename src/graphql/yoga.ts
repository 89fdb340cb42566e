/**
 * graphql-yoga serving the schema. It is called by the handlers of the document's /graphql
 * operations, after the request path has authenticated the caller and resolved its company, so
 * GraphQL has exactly REST's auth, tenancy and rate limits. Query depth, aliases, tokens and
 * directives are limited (graphql-armor), and so is what a query costs with its lists' sizes
 * (platform/graphql/cost.ts), so one query cannot cost more than a few pages of REST.
 */
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ValidationContext } from 'graphql';
import { LRUCache } from 'lru-cache';
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from 'graphql-yoga';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { Logger } from 'pino';
import { AppError, InputError } from '../platform/errors.js';
import { databaseFaultOf, graphqlCodeOf, httpStatusOf, retryAfterOf } from '../platform/error-status.js';
import type { TenantContext } from '../platform/tenant-context.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { schema } from './schema.js';
import { MAX_QUERY_COST, useQueryCostLimit } from '../platform/graphql/cost.js';
import { useErrorLog, useOperationMetrics } from './observability.js';
import { useOperationChoice } from './operation-choice.js';
import { useQueriesOnly } from './queries-only.js';
import { useValidationAbortedMessage } from './validation-aborted.js';
import type { Metrics } from '../platform/metrics.js';

/** What the handler hands to yoga with each request. */
export interface GraphQLServerContext {
  readonly tenant?: TenantContext;
  readonly activeModules?: ReadonlySet<string>;
  /** The request's id, for the log lines of its errors. */
  readonly requestId?: string;
}

/**
 * The offline GraphiQL page (a 9 MB bundle, about 45 MB of memory once loaded) is imported when a
 * browser first asks for it, not at start: an API server that never serves it never pays for it.
 */
async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
  return render(options);
}

/** What GraphiQL shows first: a query that runs once the Headers pane has a token and a company. */
export const GRAPHIQL_FIRST_QUERY = `# The 3PL GraphQL API. The schema and its docs load without a token.
# To run a query, put your token and company in the Headers pane below:
#   { "Authorization": "Bearer <token from POST /api/auth/token>", "X-Company-Id": "2" }
# then press the run button (Ctrl-Enter).
{
  articles(limit: 10) {
    id
    article_code
    description
  }
}
`;

export const GRAPHQL_LIMITS = { depth: 15, aliases: 15, cost: MAX_QUERY_COST, tokens: 2000, directives: 20 } as const;

/** The extensions of an error that answers with its own HTTP status (and Retry-After), like REST. */
function httpAnswer(status: number, retryAfterSeconds: number | undefined): Record<string, unknown> {
  return { code: graphqlCodeOf(status), http: { status, ...(retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(retryAfterSeconds) } }) } };
}

/**
 * Errors of our services keep their meaning in GraphQL, with the code of their REST status
 * (platform/error-status.ts); a database fault answers 503 with Retry-After as REST does (the
 * query's other errors answer 200). Anything else is masked.
 */
/** An error no service meant (a bug): masked as INTERNAL_SERVER_ERROR, and logged with its request id. */
export function isUnexpectedError(error: unknown): boolean {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof AppError || databaseFaultOf(original)) return false;
  return !(original instanceof GraphQLError);
}

/**
 * An error meant for the client: a service's 4xx (a 422, a 404) or GraphQL's own. Not a bug, and
 * not an outage (a database fault, a 5xx of ours), which the operators must see.
 */
function meant(error: unknown): boolean {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof AppError) return httpStatusOf(original) < 500;
  return original instanceof GraphQLError;
}

export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const path = error instanceof GraphQLError ? error.path : undefined;
  if (original instanceof AppError) {
    const status = httpStatusOf(original);
    const extensions: Record<string, unknown> = status === 503 ? httpAnswer(status, retryAfterOf(original)) : { code: graphqlCodeOf(status) };
    if (original instanceof InputError) extensions.errors = original.errors;
    return new GraphQLError(original.message, { extensions, path });
  }
  const fault = databaseFaultOf(original);
  if (fault) return new GraphQLError(fault.message, { extensions: httpAnswer(503, fault.retryAfterSeconds), path });
  if (error instanceof GraphQLError && (error.originalError === undefined || error.originalError instanceof GraphQLError)) return error;
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/**
 * Parsed queries kept (yoga's cache, 1024 by default, is sized for servers with many clients' ad hoc
 * queries). The compiled form of a query (graphql-jit, about 70 KB) lives as long as its parsed
 * document, so this also bounds the memory of compiled queries to a few MB.
 */
const CACHED_DOCUMENTS = 100;

/**
 * graphql-jit compiles a query into a function (about 1.5 ms once) that then runs it several times
 * faster than graphql-js's executor. Only a query asked a second time is compiled: the queries an
 * integration repeats are fast, and a stream of one-off queries costs no compilation.
 */
function askedBefore(): (args: ExecutionArgs) => boolean {
  const seen = new WeakSet<DocumentNode>();
  return ({ document }) => {
    if (seen.has(document)) return true;
    seen.add(document);
    return false;
  };
}

/**
 * graphql-armor's validation limits (depth, aliases, directives) throw an error titled "Syntax
 * Error" with no code, though the query parses: each is reported instead as the validation error
 * it is, with the validator's code (GRAPHQL_VALIDATION_FAILED, as an unknown field has).
 */
const reportedAsRefused = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })),
  ],
};

/**
 * The token limit is met while parsing, with no validation context to report through: its refusal
 * is thrown, worded as the other limits' (GRAPHQL_VALIDATION_FAILED), not as armor's "Syntax Error"
 * (the query is not malformed).
 */
function refuseTooManyTokens(): never {
  throw new GraphQLError(
    `The query has more than ${GRAPHQL_LIMITS.tokens} tokens (each name, value and punctuation mark counts): split it into several queries, or send long values as variables.`,
    { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
  );
}

export function createGraphQLServer(options: { logger: Logger; production: boolean; metrics: Pick<Metrics, 'graphqlOperation'> }): YogaServerInstance<GraphQLServerContext, GraphQLContext> {
  const { logger, production } = options;
  const errorLog = useErrorLog(logger, isUnexpectedError);
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    renderGraphiQL,
    graphiql: {
      title: '3PL GraphQL',
      defaultQuery: GRAPHIQL_FIRST_QUERY,
      // Empty: the schema loads without a token (introspection is public), and a placeholder token
      // would be refused (401). The first query says what to put here.
      headers: '',
      defaultEditorToolsVisibility: 'headers',
    },
    maskedErrors: { maskError },
    parserAndValidationCache: { documentCache: new LRUCache<string, DocumentNode>({ max: CACHED_DOCUMENTS }), errorCache: new LRUCache<string, object>({ max: CACHED_DOCUMENTS }) },
    logging: {
      debug: (...args) => logger.debug({ args }, 'graphql'),
      info: (...args) => logger.info({ args }, 'graphql'),
      warn: (...args) => logger.warn({ args }, 'graphql'),
      // yoga logs each error it masks, without the request. useErrorLog has already logged those of
      // an execution with the request id (it runs before the masking), and an error a service meant
      // (a 422, a 404: the client's) is no fault of ours: those go to debug here; what else yoga
      // reports stays at error.
      error: (...args) => (args.some((arg) => errorLog.logged(arg) || meant(arg)) ? logger.debug({ args }, 'graphql') : logger.error({ args }, 'graphql')),
    },
    context: ({ tenant, activeModules, requestId }) => ({ tenant: tenant!, activeModules: activeModules ?? new Set(), requestId }),
    plugins: [
      useOperationChoice(),
      useQueriesOnly(),
      useValidationAbortedMessage(),
      maxDepthPlugin({ n: GRAPHQL_LIMITS.depth, flattenFragments: true, ignoreIntrospection: false, ...reportedAsRefused }),
      maxAliasesPlugin({ n: GRAPHQL_LIMITS.aliases, ...reportedAsRefused }),
      useQueryCostLimit(),
      maxTokensPlugin({ n: GRAPHQL_LIMITS.tokens, onReject: [refuseTooManyTokens] }),
      maxDirectivesPlugin({ n: GRAPHQL_LIMITS.directives, ...reportedAsRefused }),
      ...(production ? [blockFieldSuggestionsPlugin()] : []),
      useGraphQlJit({}, { enableIf: askedBefore() }),
      useOperationMetrics(options.metrics),
      errorLog.plugin,
    ],
  });
}
