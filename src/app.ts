/**
 * createApp(deps): the request path, in order, on one screen. It never listens (main.ts does).
 * Every route, and everything about a route, comes from the OpenAPI document.
 */
import express, { type Express } from 'express';
import type { AppDeps } from './platform/app-deps.js';
import { loadContract, type Contract } from './platform/openapi/contract.js';
import { requestId } from './platform/http/request-id.js';
import { accessLog } from './platform/http/access-log.js';
import { jsonBody } from './platform/http/json-body.js';
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
import { NOT_IMPLEMENTED } from './not-implemented.js';
import { verifyBearerToken } from './components/auth/auth.service.js';
import { resolveAccess } from './components/auth/access.service.js';

export interface App {
  readonly express: Express;
  readonly contract: Contract;
}

export async function createApp(deps: AppDeps): Promise<App> {
  const contract = await loadContract(handlers, NOT_IMPLEMENTED);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  app.set('query parser', parseQuery);

  app.use(requestId()); // 1. request id
  app.use(accessLog(deps.logger)); //    and the access log
  app.use(deps.metrics.requestMetrics); //    and request metrics
  app.use(jsonBody()); // 2. JSON body: malformed 400, over 1 MiB 413
  app.use(operationLookup(contract.router)); // 3. the operation: unknown route 404, other method 405
  app.use(
    rateLimits({
      // 4. x-rate-limit
      authPerMinute: deps.config.rateLimitAuthPerMinute,
      dataPerMinute: deps.config.rateLimitDataPerMinute,
      redisCommand: deps.redis ? (args) => deps.redis!.sendCommand(args) as never : undefined,
      logger: deps.logger,
    }),
  );
  app.use(authenticate({ db: deps.db, config: deps.config, verifyBearer: verifyBearerToken })); // 5. security
  app.use(tenancy({ db: deps.db, resolveAccess })); // 6. X-Company-Id, x-module, x-role
  app.use(requestValidation(contract.document)); // 7. the document's schemas; 422
  app.use(idempotency({ db: deps.db })); // 8. Idempotency-Key on x-idempotent operations
  app.use(dispatch(contract, deps)); // 9. operationId -> handler
  app.use(errorHandler(deps.logger)); // 10. the contract's error body

  return { express: app, contract };
}
