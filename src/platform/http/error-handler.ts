/**
 * Step 10: every error becomes the contract's body `{ message, errors? }` with its status. The
 * platform's errors map by class; body-parser's and express-openapi-validator's by their own
 * markers (the validator's 400s become 422s with field errors). Anything else is logged with the
 * request id and answered as a bare 500: no stack, SQL or path ever reaches a body.
 */
import type { ErrorRequestHandler, Request } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from 'pino';
import * as errors from '../errors.js';
import { databaseFaultOf, graphqlCodeOf, httpStatusOf, retryAfterOf } from '../error-status.js';
import { writeJson } from './json-answer.js';
import { toFieldErrors, type ValidatorErrorItem } from './validation-errors.js';

interface Rendered {
  status: number;
  body: { message: string; errors?: errors.FieldErrors };
  headers?: Record<string, string>;
}

function renderAppError(error: errors.AppError): Rendered {
  const rendered: Rendered = { status: httpStatusOf(error), body: { message: error.message } };
  if (error instanceof errors.InputError) rendered.body.errors = error.errors;
  if (error instanceof errors.MethodNotAllowedError) rendered.headers = { Allow: error.allow.join(', ') };
  if (error instanceof errors.PreconditionFailedError) rendered.headers = { ETag: error.etag };
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) rendered.headers = { 'Retry-After': String(retryAfter) };
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

/** What the operation says of its input, for wording the validator's errors: its parameters and its body's schema. */
interface Input {
  parameters: Parameters<typeof toFieldErrors>[1];
  body: Parameters<typeof toFieldErrors>[2];
}

function inputOf(req: Request): Input {
  const requestBody = req.operation?.raw.requestBody as { content?: Record<string, { schema?: Input['body'] }> } | undefined;
  return { parameters: req.operation?.parameters ?? [], body: requestBody?.content?.['application/json']?.schema };
}

/**
 * The most fields with problems a 422 of the schema lists: a body of 90,000 unknown keys answered
 * 4 MB of them, four times the request, without a token. More are counted in the message.
 */
export const MAX_LISTED_FIELDS = 100;

/** The validator's items of the first MAX_LISTED_FIELDS paths, and how many paths there are. */
function firstFields(items: readonly ValidatorErrorItem[]): { listed: ValidatorErrorItem[]; paths: number } {
  const paths = new Set<string | undefined>();
  const listed: ValidatorErrorItem[] = [];
  for (const item of items) {
    paths.add(item.path);
    if (paths.size <= MAX_LISTED_FIELDS) listed.push(item);
  }
  return { listed, paths: paths.size };
}

function renderValidatorError(error: { status: number; message: string; path?: string; errors?: ValidatorErrorItem[] }, input: Input): Rendered {
  if (error.status === 415) {
    return { status: 415, body: { message: 'The request body must be application/json.' } };
  }
  if (error.status === 400) {
    const { listed, paths } = firstFields(error.errors?.length ? error.errors : [{ path: error.path, message: error.message }]);
    const message = paths > MAX_LISTED_FIELDS ? `The given data was invalid: ${paths} fields have problems, the first ${MAX_LISTED_FIELDS} are listed.` : 'The given data was invalid.';
    return { status: 422, body: { message, errors: toFieldErrors(listed, input.parameters, input.body) } };
  }
  return { status: error.status, body: { message: error.message } };
}

function render(error: unknown, input: Input): Rendered | undefined {
  if (error instanceof errors.AppError) return renderAppError(error);
  if (error instanceof OpenApiValidator.error.BadRequest || error instanceof OpenApiValidator.error.UnsupportedMediaType) {
    return renderValidatorError(error as never, input);
  }
  if (typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string') {
    return renderBodyParserError(error as { type: string });
  }
  const fault = databaseFaultOf(error);
  return fault && { status: 503, body: { message: fault.message }, headers: { 'Retry-After': String(fault.retryAfterSeconds) } };
}

/** The same error as a GraphQL response (operations with x-error-format: graphql). */
function asGraphQL(rendered: Rendered): unknown {
  const extensions: Record<string, unknown> = { code: graphqlCodeOf(rendered.status) };
  if (rendered.body.errors) extensions.errors = rendered.body.errors;
  return { errors: [{ message: rendered.body.message, extensions }] };
}

/**
 * RFC 6750's challenge on every 401: `Bearer` with the realm; `error="invalid_token"` when a bearer
 * token was sent and refused (without one, the RFC says to name no error).
 */
export function bearerChallenge(req: Pick<Request, 'headers'>): string {
  const sent = /^\s*Bearer\s+\S/i.test(req.headers.authorization ?? '');
  return sent ? 'Bearer realm="api", error="invalid_token", error_description="The token is malformed, unknown or revoked."' : 'Bearer realm="api"';
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let rendered = render(error, inputOf(req));
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
    if (error instanceof errors.ServiceUnavailableError && error.refusedUnheard) res.locals[errors.REFUSED_UNHEARD] = true;
    if (rendered.status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(req));
    res.statusCode = rendered.status;
    writeJson(res, JSON.stringify(req.operation?.errorFormat === 'graphql' ? asGraphQL(rendered) : rendered.body));
  };
}
