/**
 * Step 10: every error becomes the contract's body `{ message, errors? }` with its status. The
 * platform's errors map by class; body-parser's and express-openapi-validator's by their own
 * markers (the validator's 400s become 422s with field errors). Anything else is logged with the
 * request id and answered as a bare 500: no stack, SQL or path ever reaches a body.
 */
import type { ErrorRequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from 'pino';
import * as errors from '../errors.js';
import { isConnectionError, isRetryableTransactionError } from '../db/driver-errors.js';
import { toFieldErrors, type ValidatorErrorItem } from './validation-errors.js';

interface Rendered {
  status: number;
  body: { message: string; errors?: errors.FieldErrors };
  headers?: Record<string, string>;
}

const STATUS = new Map<Function, number>([
  [errors.BadRequestError, 400],
  [errors.UnauthenticatedError, 401],
  [errors.ForbiddenError, 403],
  [errors.NotFoundError, 404],
  [errors.MethodNotAllowedError, 405],
  [errors.ConflictError, 409],
  [errors.PayloadTooLargeError, 413],
  [errors.UnsupportedMediaTypeError, 415],
  [errors.InputError, 422],
  [errors.TooManyRequestsError, 429],
  [errors.NotImplementedError, 501],
  [errors.ServiceUnavailableError, 503],
]);

function renderAppError(error: errors.AppError): Rendered {
  const status = STATUS.get(error.constructor) ?? 500;
  const rendered: Rendered = { status, body: { message: error.message } };
  if (error instanceof errors.InputError) rendered.body.errors = error.errors;
  if (error instanceof errors.MethodNotAllowedError) rendered.headers = { Allow: error.allow.join(', ') };
  if (error instanceof errors.ServiceUnavailableError && error.retryAfterSeconds !== undefined) {
    rendered.headers = { 'Retry-After': String(error.retryAfterSeconds) };
  }
  return rendered;
}

/** body-parser marks its errors with `type`. */
function renderBodyParserError(error: { type: string }): Rendered | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return { status: 400, body: { message: 'The request body is not valid JSON.' } };
    case 'entity.too.large':
      return { status: 413, body: { message: 'The request body is larger than 1 MiB.' } };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, body: { message: 'The request body must be UTF-8 encoded JSON.' } };
    default:
      return undefined;
  }
}

function renderValidatorError(error: { status: number; message: string; path?: string; errors?: ValidatorErrorItem[] }, parameters: Parameters<typeof toFieldErrors>[1]): Rendered {
  if (error.status === 415) {
    return { status: 415, body: { message: 'The request body must be application/json.' } };
  }
  if (error.status === 400) {
    const items = error.errors?.length ? error.errors : [{ path: error.path, message: error.message }];
    return { status: 422, body: { message: 'The given data was invalid.', errors: toFieldErrors(items, parameters) } };
  }
  return { status: error.status, body: { message: error.message } };
}

function render(error: unknown, parameters: Parameters<typeof toFieldErrors>[1]): Rendered | undefined {
  if (error instanceof errors.AppError) return renderAppError(error);
  if (error instanceof OpenApiValidator.error.BadRequest || error instanceof OpenApiValidator.error.UnsupportedMediaType) {
    return renderValidatorError(error as never, parameters);
  }
  if (typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string') {
    return renderBodyParserError(error as { type: string });
  }
  if (isRetryableTransactionError(error)) {
    // Still a deadlock victim after inTransaction's retries: the whole transaction was rolled back.
    return { status: 503, body: { message: 'Too many concurrent changes to the same records; nothing was changed. Try again shortly.' }, headers: { 'Retry-After': '1' } };
  }
  if (isConnectionError(error)) {
    return { status: 503, body: { message: 'The service is temporarily unavailable. Try again shortly.' }, headers: { 'Retry-After': '5' } };
  }
  return undefined;
}

const GRAPHQL_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'BAD_USER_INPUT',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/** The same error as a GraphQL response (operations with x-error-format: graphql). */
function asGraphQL(rendered: Rendered): unknown {
  const extensions: Record<string, unknown> = { code: GRAPHQL_CODES[rendered.status] ?? 'INTERNAL_SERVER_ERROR' };
  if (rendered.body.errors) extensions.errors = rendered.body.errors;
  return { errors: [{ message: rendered.body.message, extensions }] };
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let rendered = render(error, req.operation?.parameters ?? []);
    if (!rendered || rendered.status >= 500) {
      const level = rendered ? 'warn' : 'error';
      logger[level]({ err: error, requestId: req.requestId, operation: req.operation?.operationId }, 'request failed');
    }
    rendered ??= { status: 500, body: { message: 'Server Error.' } };
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (rendered.headers) res.set(rendered.headers);
    res.status(rendered.status).json(req.operation?.errorFormat === 'graphql' ? asGraphQL(rendered) : rendered.body);
  };
}
