/**
 * Derives, from each operation's policy (security, x-module, x-role, x-rate-limit, x-idempotent,
 * x-database, its parameters and body), the responses and parameters that the request path
 * produces for it: the standard errors, the RateLimit-* headers and the Idempotency-Key header. An
 * operation that writes one of these itself keeps its own. Every response gets X-Request-Id.
 */

type Json = Record<string, unknown>;
export interface OpenApiDoc {
  openapi: string;
  security?: Json[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas?: Json; parameters?: Record<string, Json>; responses?: Record<string, Json>; [k: string]: unknown };
  [k: string]: unknown;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

function ref(kind: string, name: string): Json {
  return { $ref: `#/components/${kind}/${name}` };
}

function resolveParameter(doc: OpenApiDoc, param: Json): Json {
  const target = param.$ref;
  if (typeof target !== 'string') return param;
  const name = target.replace('#/components/parameters/', '');
  const resolved = doc.components.parameters?.[name];
  if (!resolved) throw new Error(`Unknown parameter ${target}`);
  return resolved;
}

/** The response component to use for `name`, with the RateLimit-* headers when `limited`. */
function responseRef(doc: OpenApiDoc, name: string, limited: boolean): Json {
  if (!limited) return ref('responses', name);
  const responses = doc.components.responses ?? {};
  const limitedName = `${name}RateLimited`;
  if (!responses[limitedName]) {
    const base = responses[name];
    if (!base) throw new Error(`Unknown response ${name}`);
    const headers = { ...((base.headers as Json | undefined) ?? {}) };
    for (const h of RATE_LIMIT_HEADERS) headers[h] = ref('headers', h);
    responses[limitedName] = { ...base, headers };
  }
  return ref('responses', limitedName);
}

/**
 * A GraphQL operation's 401: its one GraphQL error response with RFC 6750's challenge, which the
 * request path sends on every 401 (REST's Unauthenticated response declares it itself).
 */
function graphqlUnauthenticated(doc: OpenApiDoc): Json {
  const responses = (doc.components.responses ??= {});
  if (!responses.GraphQLUnauthenticated) {
    const base = responses.GraphQLRequestError;
    if (!base) throw new Error('Unknown response GraphQLRequestError');
    const headers = { ...((base.headers as Json | undefined) ?? {}), 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') };
    responses.GraphQLUnauthenticated = { ...base, description: 'The bearer token is missing, malformed, unknown or revoked (`UNAUTHENTICATED`).', headers };
  }
  return ref('responses', 'GraphQLUnauthenticated');
}

function withRateLimitHeaders(doc: OpenApiDoc, response: Json): Json {
  if (typeof response.$ref === 'string') {
    return responseRef(doc, response.$ref.replace('#/components/responses/', ''), true);
  }
  const headers = { ...((response.headers as Json | undefined) ?? {}) };
  for (const h of RATE_LIMIT_HEADERS) headers[h] = ref('headers', h);
  return { ...response, headers };
}

/** The response with `headers` added (a referenced response is copied inline). */
function withHeaders(doc: OpenApiDoc, response: Json, headers: Json): Json {
  const base = typeof response.$ref === 'string' ? doc.components.responses?.[response.$ref.replace('#/components/responses/', '')] : response;
  if (!base) throw new Error(`Unknown response ${String(response.$ref)}`);
  return { ...base, headers: { ...((base.headers as Json | undefined) ?? {}), ...headers } };
}

/** Writes read a JSON body even where the document declares none (to refuse one); GET and HEAD never do. */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

function deriveOperation(doc: OpenApiDoc, pathItem: Json, op: Json, method: string): void {
  const security = (op.security as Json[] | undefined) ?? doc.security ?? [];
  const parameters = [...((pathItem.parameters as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])];
  if (op['x-idempotent'] === true) {
    op.parameters = [...((op.parameters as Json[]) ?? []), ref('parameters', 'IdempotencyKey')];
    parameters.push(ref('parameters', 'IdempotencyKey'));
  }
  const resolved = parameters.map((p) => resolveParameter(doc, p));
  const company = resolved.find((p) => p.in === 'header' && p.name === 'X-Company-Id');
  const readsBody = op.requestBody !== undefined || BODY_METHODS.has(method);
  // Unknown query parameters are refused (a 422 naming them: a typo never passes unnoticed), except
  // by a read that takes no parameter and no body at all: nothing there can be mistyped, it documents
  // no 422, and a cache-busting `?v=2` on the document or the docs page must not fail.
  if (resolved.length === 0 && !readsBody) op['x-eov-allow-unknown-query-parameters'] = true;
  const limited = op['x-rate-limit'] !== 'none';
  const takesCredentials = security.some((req) => Object.keys(req).length > 0);

  const derived: Array<[string, string, boolean]> = [
    ['400', 'BadRequest', readsBody || company?.required === true],
    ['401', 'Unauthenticated', takesCredentials],
    ['403', 'Forbidden', op['x-role'] !== 'none' || op['x-module'] !== 'none' || company !== undefined],
    ['404', 'NotFound', resolved.some((p) => p.in === 'path')],
    ['409', 'Conflict', op['x-idempotent'] === true],
    ['413', 'PayloadTooLarge', readsBody],
    ['415', 'UnsupportedMediaType', readsBody],
    ['422', 'ValidationFailed', readsBody || resolved.length > 0],
    // The failed-authentication ceiling holds back every operation that looks at a credential.
    ['429', 'TooManyRequests', limited || takesCredentials],
    ['503', 'IntegrationNotConfigured', security.some((req) => 'etsmToken' in req || 'mdmToken' in req)],
    ['503', 'DatabaseUnavailable', op['x-database'] !== false],
  ];
  const responses = { ...(op.responses as Json) };
  const graphql = op['x-error-format'] === 'graphql';
  for (const [status, name, applies] of derived) {
    if (!applies || responses[status] !== undefined) continue;
    if (graphql) responses[status] = status === '401' ? graphqlUnauthenticated(doc) : ref('responses', 'GraphQLRequestError');
    else responses[status] = ref('responses', name);
  }
  if (op['x-idempotent'] === true) {
    for (const [status, response] of Object.entries(responses)) {
      if (!status.startsWith('2')) continue;
      const r = response as Json;
      responses[status] = { ...r, headers: { ...((r.headers as Json) ?? {}), 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } };
    }
  }
  if (limited) {
    for (const [status, response] of Object.entries(responses)) {
      responses[status] = withRateLimitHeaders(doc, response as Json);
    }
  }
  if (op.deprecated === true) {
    if (typeof op['x-deprecated-at'] !== 'string') throw new Error(`${op.operationId as string}: deprecated: true needs x-deprecated-at (YYYY-MM-DD)`);
    const headers = { Deprecation: ref('headers', 'Deprecation'), ...(op['x-sunset'] === undefined ? {} : { Sunset: ref('headers', 'Sunset') }) };
    for (const [status, response] of Object.entries(responses)) responses[status] = withHeaders(doc, response as Json, headers);
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** Drops the response components that only served as templates of their rate-limited variants. */
function pruneUnusedResponses(doc: OpenApiDoc): void {
  const responses = doc.components.responses ?? {};
  const text = JSON.stringify({ paths: doc.paths, responses });
  for (const name of Object.keys(responses)) {
    if (!text.includes(`"#/components/responses/${name}"`)) delete responses[name];
  }
}

/**
 * Every answer carries X-Request-Id (the request path's first step sets it): the header is added to
 * every response, the referenced ones in their component and the inline ones where they are.
 */
function withRequestIdEverywhere(doc: OpenApiDoc): void {
  const add = (response: Json): void => {
    if (typeof response.$ref === 'string') return;
    response.headers = { ...((response.headers as Json | undefined) ?? {}), 'X-Request-Id': ref('headers', 'X-Request-Id') };
  };
  for (const response of Object.values(doc.components.responses ?? {})) add(response);
  for (const pathItem of Object.values(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = pathItem[method] as Json | undefined;
      for (const response of Object.values((op?.responses as Record<string, Json> | undefined) ?? {})) add(response);
    }
  }
}

export function derivePolicyResponses(doc: OpenApiDoc): void {
  for (const [route, pathItem] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = pathItem[method] as Json | undefined;
      if (!op) continue;
      for (const key of ['x-module', 'x-role', 'x-rate-limit']) {
        if (op[key] === undefined) throw new Error(`${method.toUpperCase()} ${route}: ${key} is missing`);
      }
      deriveOperation(doc, pathItem, op, method);
    }
  }
  pruneUnusedResponses(doc);
  withRequestIdEverywhere(doc);
}
