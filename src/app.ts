/**
 * createApp(deps): the request path, in order, on one screen. It never listens (main.ts does).
 * Every route, and everything about a route, comes from the OpenAPI document.
 */
import express, { type Express } from 'express';
import type { AppDeps } from './platform/app-deps.js';
import { loadContract, type Contract } from './platform/openapi/contract.js';
import { readDocument, type OpenApiDocument, type OperationId } from './platform/openapi/document.js';
import { requestId } from './platform/http/request-id.js';
import { securityHeaders } from './platform/http/security-headers.js';
import { accessLog } from './platform/http/access-log.js';
import { jsonBody, refuseUnreadBody } from './platform/http/json-body.js';
import { parseQuery } from './platform/http/query-parser.js';
import { operationLookup } from './platform/http/operation-lookup.js';
import { rateLimits } from './platform/http/rate-limit.js';
import { authenticate } from './platform/http/authenticate.js';
import { tenancy } from './platform/http/tenancy.js';
import { requestValidation } from './platform/http/validation.js';
import { dispatch } from './platform/http/dispatch.js';
import { idempotency } from './platform/idempotency/idempotency.js';
import { errorHandler } from './platform/http/error-handler.js';
import { handlers } from './handlers.js';
import { observePool } from './platform/db/pool-metrics.js';
import { verifyBearerToken } from './components/auth/auth.service.js';
import { resolveAccess } from './components/auth/access.service.js';
import { createAuthCache } from './components/auth/auth.cache.js';

export interface App {
  readonly express: Express;
  readonly contract: Contract;
}

/** The document to serve and the operations of it that have no handler (501). */
export interface ContractSource {
  readonly document: OpenApiDocument;
  readonly notImplemented: readonly OperationId[];
}

/** `source` is the bundled document; the benchmark passes a padded one to show routing does not grow with it. */
export async function createApp(given: AppDeps, source: ContractSource = { document: readDocument(), notImplemented: [] }): Promise<App> {
  const contract = await loadContract(handlers, source.notImplemented, source.document);
  const authCache = given.authCache ?? createAuthCache({ ttlSeconds: given.config.authCacheTtlSeconds, verify: verifyBearerToken, resolve: resolveAccess });
  const deps: AppDeps = { ...given, authCache };
  if (!deps.metrics.registry.getSingleMetric('tpl_db_pool_connections')) observePool(deps.metrics.registry, deps.db);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  app.set('query parser', parseQuery);

  app.use(securityHeaders()); //    security headers on every answer (helmet)
  app.use(requestId()); // 1. request id
  app.use(accessLog(deps.logger)); //    and the access log
  app.use(deps.metrics.requestMetrics); //    and request metrics
  app.use(operationLookup(contract.router)); // 2. the operation: unknown route 404, other method 405
  app.use(jsonBody()); // 3. JSON body: malformed 400, over 1 MiB 413, not what its Content-Encoding says 400
  app.use(
    rateLimits({
      // 4. failed authentications per address; x-rate-limit
      authPerMinute: deps.config.rateLimitAuthPerMinute,
      authPerAddressPerMinute: deps.config.rateLimitAuthPerAddressPerMinute,
      dataPerMinute: deps.config.rateLimitDataPerMinute,
      failedAuthPerMinute: deps.config.rateLimitFailedAuthPerMinute,
      integrationTokens: { etsm: deps.config.etsmToken, mdm: deps.config.mdmToken },
      redisCommand: deps.redis ? (args) => deps.redis!.sendCommand(args) as never : undefined,
      redisPrefix: deps.config.redisPrefix,
      logger: deps.logger,
    }),
  );
  app.use(refuseUnreadBody()); //    the body step 3 could not read: 400, 413, 415, counted by step 4
  app.use(authenticate({ db: deps.db, config: deps.config, verifyBearer: authCache.verifyBearer })); // 5. security (a 401 counts against the address)
  app.use(tenancy({ db: deps.db, resolveAccess: authCache.resolveAccess })); // 6. X-Company-Id, x-module, x-role
  app.use(requestValidation(contract.document)); // 7. the document's schemas; 422
  app.use(idempotency({ db: deps.db, metrics: deps.metrics })); // 8. Idempotency-Key on x-idempotent operations
  app.use(dispatch(contract, deps)); // 9. operationId -> handler
  app.use(errorHandler(deps.logger)); // 10. the contract's error body

  return { express: app, contract };
}
