/**
 * Checks a response against the document: its status must be documented for the operation, the
 * headers it declares required must be there, and its body must match that response's schema. Objects are checked closed (a property the schema
 * does not name fails), so no undocumented field (a hash, an internal column) can leak.
 */
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';
import { readDocument, type ContractOperation } from '../../src/platform/openapi/document.js';
import { OperationRouter } from '../../src/platform/openapi/operation-router.js';
import { listOperations } from '../../src/platform/openapi/document.js';

type Json = Record<string, unknown>;
const document = readDocument() as unknown as { components: { schemas: Json; responses: Record<string, Json>; headers: Record<string, Json> }; paths: Json };
const router = new OperationRouter(listOperations(readDocument()));
const OPEN = '__open';

/**
 * A copy of the schema with every object closed (unevaluatedProperties: false), allOf-aware; with
 * `close` false, the schema as written (what a client validating responses reads).
 */
function closed(schema: unknown, insideAllOf = false, close = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closed(s, false, close));
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = schema as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'allOf') {
      out.allOf = (value as Json[]).map((part) =>
        typeof part.$ref === 'string' ? { $ref: close ? `${part.$ref}${OPEN}` : part.$ref } : closed(part, true, close),
      );
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, closed(v, false, close)]));
    } else if (key === 'example') {
      continue;
    } else if (key === 'discriminator') {
      // ajv takes no `mapping` (it throws); each variant's one-value `type` enum says the same.
      out.discriminator = { propertyName: (value as Json).propertyName };
    } else {
      out[key] = typeof value === 'object' ? closed(value, false, close) : value;
    }
  }
  const isObject = s.properties !== undefined || s.allOf !== undefined;
  if (close && isObject && !insideAllOf && s.additionalProperties === undefined) out.unevaluatedProperties = false;
  return out;
}

function buildAjv(close: boolean): Ajv2019 {
  const ajv = new Ajv2019({ strict: false, allErrors: true, discriminator: true });
  (addFormatsModule as unknown as { default: (ajv: Ajv2019) => void }).default(ajv);
  const schemas = document.components.schemas;
  const definitions: Json = {};
  for (const [name, schema] of Object.entries(schemas)) {
    definitions[name] = closed(schema, false, close);
    if (close) definitions[`${name}${OPEN}`] = closed({ ...(schema as Json) }, true) as Json;
  }
  ajv.addSchema({ $id: 'doc', components: { schemas: definitions } });
  return ajv;
}

/**
 * Two readings of the document. Closed: no undocumented field may leak. As written: what a client
 * that validates responses with the document reads (objects open), where a `oneOf` whose
 * alternatives both fit a body (an object with more properties fits a narrower one too) refuses
 * an answer the closed reading accepts.
 */
const readings = { closed: buildAjv(true), asWritten: buildAjv(false) };
const ajv = readings.closed;
const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: Json, reading: keyof typeof readings = 'closed'): ValidateFunction {
  const key = `${reading}:${JSON.stringify(schema)}`;
  let validate = validators.get(key);
  if (!validate) {
    const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"doc#/components/schemas/'));
    validate = readings[reading].compile(closed(rewritten, false, reading === 'closed') as Json);
    validators.set(key, validate);
  }
  return validate;
}

function resolveResponse(response: Json): Json {
  const ref = response.$ref;
  if (typeof ref !== 'string') return response;
  return document.components.responses[ref.replace('#/components/responses/', '')]!;
}

export interface CheckedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text?: string;
}

function operationFor(method: string, path: string): ContractOperation | undefined {
  return router.match(path)?.methods.get(method === 'HEAD' ? 'GET' : method);
}

/** Throws when the response breaks the document; answers quietly otherwise. */
export function checkResponse(method: string, url: string, res: CheckedResponse): void {
  // As sent: URL parsing would resolve `.` and `..` segments the server never saw resolved.
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] || '/';
  const op = operationFor(method, path);
  const where = `${method} ${path} -> ${res.status}`;
  let schema: Json | undefined;
  if (!op) {
    if (![404, 405].includes(res.status)) throw new Error(`${where}: no operation of the document matches`);
    schema = { $ref: '#/components/schemas/ErrorBody' };
  } else {
    const responses = (op.raw as unknown as { responses: Record<string, Json> }).responses;
    const documented = responses[String(res.status)] ?? responses.default;
    if (!documented) {
      throw new Error(`${where}: status ${res.status} is not documented for ${op.operationId} (documented: ${Object.keys(responses).join(', ')})`);
    }
    const resolved = resolveResponse(documented);
    for (const [name, header] of Object.entries((resolved.headers as Record<string, Json> | undefined) ?? {})) {
      const declared = typeof header.$ref === 'string' ? document.components.headers[header.$ref.replace('#/components/headers/', '')]! : header;
      if (declared.required === true && res.headers[name.toLowerCase()] === undefined) throw new Error(`${where}: the required header ${name} is missing`);
    }
    const content = resolved.content as Record<string, { schema?: Json }> | undefined;
    const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!content) {
      if (res.text) throw new Error(`${where}: the document declares no body, the response has one`);
      return;
    }
    const media = content[contentType];
    if (!media) throw new Error(`${where}: content type "${contentType}" is not documented (${Object.keys(content).join(', ')})`);
    if (contentType !== 'application/json') return;
    schema = media.schema;
  }
  if (!schema) return;
  for (const reading of ['closed', 'asWritten'] as const) {
    const validate = validatorFor(schema, reading);
    if (validate(res.body)) continue;
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'unevaluatedProperty' in e.params ? ` (${String(e.params.unevaluatedProperty)})` : ''}`);
    const how = reading === 'closed' ? '' : ' as written (objects open, as a client reads it)';
    throw new Error(`${where}: the body does not match the document${how}:\n  ${problems.join('\n  ')}\n  body: ${JSON.stringify(res.body).slice(0, 600)}`);
  }
}

/** Checks a value against a schema of the document by name (closed like responses), e.g. an event's data. */
export function checkSchema(name: string, value: unknown): void {
  const validate = validatorFor({ $ref: `#/components/schemas/${name}` });
  if (!validate(value)) throw new Error(`Not a ${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}
