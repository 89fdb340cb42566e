/**
 * Step 7: request validation by express-openapi-validator against the bundled document. Only its
 * request validator runs: step 3 already matched the operation and handed it over as `req.openapi`,
 * so the validator's own route search (one compiled path regexp per route, every request) is not
 * used. Its errors become 422s in error-handler.ts. An operation that takes no body refuses one
 * with content (`{}` and no body pass): 422 naming each property, so nothing is accepted unread.
 */
import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { InputError } from '../errors.js';
import type { OpenApiDocument } from '../openapi/document.js';
import { acceptReservedInQuery, type ParameterNode } from '../openapi/reserved-characters.js';
import type { RequestWithOpenApi } from './request-context.js';
import { nonDecimalIntegers } from './integer-parameters.js';
import { undecodableParameters } from './query-encoding.js';
import { repeatedParameters } from './repeated-parameters.js';
import { unknownOrEmptyParameters } from './unknown-parameters.js';
import { unstorableText } from './unstorable-text.js';
import { pointerSegment, type ValidatorErrorItem } from './validation-errors.js';

/**
 * ajv coerces a numeral too large for a double ("1e400", 400 nines) to Infinity and lets it pass
 * as an integer: the 422 naming such a path or query parameter, or undefined.
 */
const infinite = (value: unknown): boolean =>
  Array.isArray(value) ? value.some(infinite) : typeof value === 'number' && !Number.isFinite(value);

function infiniteParameter(req: Request): InputError | undefined {
  // Runs on every request: looks without copying, and builds the error only when there is one.
  const sources = [(req as RequestWithOpenApi).openapi?.pathParams ?? {}, req.query as Record<string, unknown>];
  if (!sources.some((values) => Object.values(values).some(infinite))) return undefined;
  const bad = sources.flatMap((values) => Object.entries(values)).filter(([, v]) => infinite(v));
  const typeOf = (name: string) => (req.operation?.parameters.find((p) => p.name === name)?.schema as { type?: string } | undefined)?.type;
  return new InputError(Object.fromEntries(bad.map(([name]) => [name, [`The ${name} field must be ${typeOf(name) === 'number' ? 'a number' : 'an integer'}.`]])));
}

const NO_BODY: ValidatorErrorItem[] = [{ path: '/body', message: 'This operation takes no request body.' }];
const NO_PATHS: readonly string[] = [];
const NO_PROBLEMS: readonly ValidatorErrorItem[] = [];

/**
 * The problems of a body sent to an operation without one (none when there is nothing in it), in
 * the validator's shape: listed with the request's other problems, at most MAX_LISTED_FIELDS.
 */
function unexpectedBody(req: Request): readonly ValidatorErrorItem[] {
  const body: unknown = req.body;
  if (req.operation?.raw.requestBody !== undefined || body === undefined) return NO_PROBLEMS;
  if (typeof body !== 'object' || body === null) return NO_BODY;
  if (Array.isArray(body)) return body.length ? NO_BODY : NO_PROBLEMS;
  return Object.keys(body).map((key) => ({
    path: `/body/${pointerSegment(key)}`,
    message: 'must NOT have additional properties',
    errorCode: 'additionalProperties.openapi.validation',
  }));
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * A request that sends no body at all (no length, no chunks) to an operation that takes one is
 * read as `{}`, whether it names Content-Type: application/json or no type: its required fields are
 * then named in a 422 (`POST .../status` without a body is a 422 on `status`), instead of a 415
 * about a media type that was never sent, or a handler given no body. Another type is left to the
 * validator (415).
 */
function readAbsentBodyAsEmpty(req: Request): void {
  if (req.operation?.raw.requestBody === undefined || req.body !== undefined) return;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0') return;
  const type = headers['content-type'];
  if (type === undefined) headers['content-type'] = 'application/json';
  else if (!JSON_TYPE.test(type)) return;
  req.body = {};
}

type SchemaNode = { $ref?: string; properties?: Record<string, SchemaNode>; items?: SchemaNode };

/**
 * The document as the request validator reads it: the `items` of the body of an operation marked
 * `x-bulk-items` are only required to be objects there, since the service checks each one on its
 * own (platform/openapi/schema-validator.ts) and a bad item fails alone, not the whole request;
 * shared query parameters take reserved characters (reserved-characters.ts; those written in an
 * operation, in its validatorSchema).
 */
function forRequestValidation(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  const schemas = (copy.components as { schemas: Record<string, SchemaNode> }).schemas;
  for (const item of Object.values(copy.paths)) {
    for (const op of Object.values(item as Record<string, { 'x-bulk-items'?: boolean; requestBody?: { content?: Record<string, { schema?: SchemaNode }> } }>)) {
      if (op?.['x-bulk-items'] !== true) continue;
      const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
      const body = ref ? schemas[ref.replace('#/components/schemas/', '')] : undefined;
      if (!body?.properties?.items) throw new Error(`${ref ?? 'a bulk operation'}: x-bulk-items needs a body schema with an items array`);
      body.properties.items = { ...body.properties.items, items: { type: 'object' } as SchemaNode };
    }
  }
  for (const parameter of Object.values((copy.components.parameters ?? {}) as Record<string, ParameterNode>)) acceptReservedInQuery(parameter);
  return copy;
}

/**
 * Dates and times are checked as dates that exist: the validator's default ("fast") formats only
 * match their shape, so 2027-02-31 or 2026-13-01 passed as a `format: date` and was stored (and
 * compared as text by the expiry rules). ajv-formats' full checks for those two; the others keep
 * the validator's defaults.
 */
const CALENDAR_FORMATS = { date: fullFormats.date, 'date-time': fullFormats['date-time'] };

/** Step 6's refusal of X-Company-Id (tenancy.ts), in the validator's shape; it replaces the validator's own of the header. */
function companyIdProblem(req: Request): readonly ValidatorErrorItem[] {
  return req.companyIdProblem === undefined ? NO_PROBLEMS : [{ path: '/headers/x-company-id', message: req.companyIdProblem, errorCode: 'companyId.openapi.validation' }];
}

/**
 * The validator's error with `items` added, or a new one of them. An item replaces what the
 * validator says about the same field (its errors at the items' paths, and at `covered`, are
 * dropped): it read the value after the parser and its own coercion had changed it (` ` read as 0
 * "must be at least 1", `page=1&page=2` as a list "must be an integer").
 */
function withProblems(error: unknown, items: ValidatorErrorItem[], covered: readonly string[] = []): unknown {
  if (error === undefined) return new OpenApiValidator.error.BadRequest({ path: items[0]!.path!, message: 'request is invalid', errors: items as never });
  if (!(error instanceof OpenApiValidator.error.BadRequest)) return error;
  const paths = new Set<string | undefined>([...items.map((item) => item.path), ...covered]);
  error.errors = [...(error.errors ?? []).filter((e) => !paths.has(e.path)), ...items] as never;
  return error;
}

export function requestValidation(document: OpenApiDocument): RequestHandler {
  const middlewares = OpenApiValidator.middleware({
    apiSpec: forRequestValidation(document) as never,
    // Unknown and empty query parameters are found by unknown-parameters.ts: the validator's own
    // check throws at the first, before its schema errors are gathered.
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true, coerceTypes: false },
    validateResponses: false,
    validateSecurity: false,
    validateFormats: true,
    formats: CALENDAR_FORMATS,
    ignoreUndocumented: true,
  }) as RequestHandler[];
  const validate = middlewares.find((mw) => mw.name === 'requestMiddleware');
  if (!validate) throw new Error('express-openapi-validator no longer exposes its requestMiddleware: check the upgrade');
  return (req, res, next) => {
    readAbsentBodyAsEmpty(req);
    // Read before the validator coerces the parameters.
    const query = unknownOrEmptyParameters(req);
    const problems = [
      ...companyIdProblem(req),
      ...query,
      ...undecodableParameters(req),
      ...repeatedParameters(req),
      ...nonDecimalIntegers(req),
      ...unstorableText(req.body),
      ...unexpectedBody(req),
    ];
    // Read before the validator, which adds `status` to the query for a `status[]`.
    const covered = query.length === 0 ? NO_PATHS : query.flatMap((problem) => (problem.covers === undefined ? [] : [problem.covers]));
    return validate(req, res, (error?: unknown) => {
      if (problems.length > 0) return next(withProblems(error, problems, covered));
      return error ? next(error) : next(infiniteParameter(req));
    });
  };
}
