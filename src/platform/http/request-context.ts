/** What the request path attaches to each request, step by step. */
import type { ContractOperation } from '../openapi/document.js';
import type { RequestAuth } from '../openapi/handler-types.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Step 1: X-Request-Id, as sent (when it is safe) or generated. */
    requestId: string;
    /** Step 2: the operation of the document this request calls. */
    operation?: ContractOperation;
    /** Step 3: why the body could not be read (400, 413, 415), answered once step 4 has counted the request. */
    bodyError?: unknown;
    /** Steps 5 and 6: the caller and its company scope. */
    auth?: RequestAuth;
    /** Step 6: why X-Company-Id names no company (not an id, sent twice), listed by step 7 with the request's other problems. */
    companyIdProblem?: string;
    /** Set when node:http answered the request itself (client-errors.ts): 408 when its body did not arrive in time, 400 or 413 when it was malformed. */
    clientErrorStatus?: number;
  }
}

/** The shape express-openapi-validator reads (and coerces pathParams in). */
export interface OpenApiRequestMeta {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, unknown>;
  schema: unknown;
}

export type RequestWithOpenApi = { openapi?: OpenApiRequestMeta };
