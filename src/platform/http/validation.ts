/**
 * Step 7: request validation by express-openapi-validator against the bundled document. Only its
 * request validator runs: step 3 already matched the operation and handed it over as `req.openapi`,
 * so the validator's own route search (one compiled path regexp per route, every request) is not
 * used. Its errors become 422s in error-handler.ts.
 */
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from '../openapi/document.js';

export function requestValidation(document: OpenApiDocument): RequestHandler {
  const middlewares = OpenApiValidator.middleware({
    apiSpec: structuredClone(document) as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: false,
    validateSecurity: false,
    validateFormats: true,
    ignoreUndocumented: true,
  }) as RequestHandler[];
  const validate = middlewares.find((mw) => mw.name === 'requestMiddleware');
  if (!validate) throw new Error('express-openapi-validator no longer exposes its requestMiddleware: check the upgrade');
  return validate;
}
