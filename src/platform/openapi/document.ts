/**
 * The bundled OpenAPI document, read once, and what each operation says about itself: its policy
 * (x-module, x-role, x-rate-limit, x-idempotent), its security, whether it takes X-Company-Id.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Role } from '../../kernel/access.js';
import { isRole } from '../../kernel/access.js';
import type { operations } from '../../generated/openapi.generated.js';
import { projectRoot } from '../project-root.js';
import type { SchemaName } from './schemas.js';
import { acceptReservedInQuery, type ParameterNode } from './reserved-characters.js';

export type OperationId = keyof operations;
export type RateLimitKind = 'auth' | 'data' | 'none';
export type SecurityScheme = 'bearerAuth' | 'etsmToken' | 'mdmToken';

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, unknown>>;
  components: { parameters?: Record<string, Parameter>; [key: string]: unknown };
}

export interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface RawOperation {
  operationId: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: unknown;
  'x-module': string;
  'x-role': string;
  'x-rate-limit': RateLimitKind;
  'x-idempotent'?: boolean;
  /** The body's `items` are checked one by one by the service (a bad item fails alone). */
  'x-bulk-items'?: boolean;
  'x-error-format'?: 'graphql';
  /** Set by codegen/derive-policy.ts on a read that takes no parameter: any query is taken. */
  'x-eov-allow-unknown-query-parameters'?: boolean;
  deprecated?: boolean;
  /** With `deprecated: true`: the day it was deprecated (YYYY-MM-DD), sent as `Deprecation`. */
  'x-deprecated-at'?: string;
  /** With `deprecated: true`: the day it stops answering (YYYY-MM-DD), sent as `Sunset`. */
  'x-sunset'?: string;
}

export interface ContractOperation {
  readonly operationId: OperationId;
  readonly method: string;
  /** The path template of the document: /api/articles/{id}. */
  readonly path: string;
  readonly summary: string;
  /** The operation object as written in the document. Read-only: it is served at /openapi.json. */
  readonly raw: RawOperation;
  /** A private copy of `raw` for express-openapi-validator, which writes into the objects it is given. */
  readonly validatorSchema: RawOperation;
  readonly module: string;
  readonly role: Role | 'none';
  readonly rateLimit: RateLimitKind;
  readonly idempotent: boolean;
  /** `graphql`: errors of the request path answer as GraphQL responses. */
  readonly errorFormat: 'rest' | 'graphql';
  /** Alternatives of security requirements; an empty alternative means no token is needed. */
  readonly security: ReadonlyArray<readonly SecurityScheme[]>;
  readonly companyHeader: 'required' | 'optional' | 'absent';
  readonly parameters: readonly Parameter[];
  /** The `Deprecation` and `Sunset` headers of every answer, when the document marks it deprecated (RFC 9745, RFC 8594). */
  readonly deprecationHeaders?: ReadonlyArray<readonly [string, string]>;
}

let cached: OpenApiDocument | undefined;

/** The bundled document (openapi/openapi.json), read once. Treat it as read-only. */
export function readDocument(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(path.join(projectRoot, 'openapi', 'openapi.json'), 'utf8')) as OpenApiDocument;
  return cached;
}

/** A schema of the bundled document with its `$ref`s to components/schemas followed to the schema itself. */
export function resolvedSchema<T extends { $ref?: string }>(schema: T | undefined): T | undefined {
  if (typeof schema?.$ref !== 'string') return schema;
  const schemas = readDocument().components.schemas as Record<string, T> | undefined;
  return resolvedSchema(schemas?.[schema.$ref.replace('#/components/schemas/', '')]);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Every operation of the document, in its order. */
export function listOperations(doc: OpenApiDocument): ContractOperation[] {
  return Object.entries(doc.paths).flatMap(([route, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => describeOperation(doc, method, route)),
  );
}

function resolveParameter(doc: OpenApiDocument, p: Parameter | { $ref: string }): Parameter {
  if (!('$ref' in p)) return p;
  const resolved = doc.components.parameters?.[p.$ref.replace('#/components/parameters/', '')];
  if (!resolved) throw new Error(`Unknown parameter ${p.$ref}`);
  return resolved;
}

/** The private copy of an operation for the request validator, its query parameters taking reserved characters (reserved-characters.ts). */
function validatorCopy(raw: RawOperation): RawOperation {
  const copy = structuredClone(raw);
  for (const parameter of (copy.parameters ?? []) as ParameterNode[]) acceptReservedInQuery(parameter);
  return copy;
}

export function describeOperation(doc: OpenApiDocument, method: string, route: string): ContractOperation {
  const raw = doc.paths[route]?.[method.toLowerCase()] as RawOperation | undefined;
  if (!raw) throw new Error(`No operation ${method} ${route}`);
  const role = raw['x-role'];
  if (role !== 'none' && !isRole(role)) throw new Error(`${raw.operationId}: unknown x-role ${role}`);
  const parameters = (raw.parameters ?? []).map((p) => resolveParameter(doc, p));
  const company = parameters.find((p) => p.in === 'header' && p.name === 'X-Company-Id');
  return {
    operationId: raw.operationId as OperationId,
    method: method.toUpperCase(),
    path: route,
    summary: raw.summary ?? '',
    raw,
    validatorSchema: validatorCopy(raw),
    module: raw['x-module'],
    role,
    rateLimit: raw['x-rate-limit'],
    idempotent: raw['x-idempotent'] === true,
    errorFormat: raw['x-error-format'] === 'graphql' ? 'graphql' : 'rest',
    security: (raw.security ?? doc.security ?? []).map((req) => Object.keys(req) as SecurityScheme[]),
    companyHeader: company === undefined ? 'absent' : company.required ? 'required' : 'optional',
    parameters,
    ...(raw.deprecated === true ? { deprecationHeaders: deprecationHeaders(raw) } : {}),
  };
}

/** A day of the document (YYYY-MM-DD) as epoch ms, midnight UTC. */
function dayOf(raw: RawOperation, key: 'x-deprecated-at' | 'x-sunset'): number | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms)) throw new Error(`${raw.operationId}: ${key} must be a day, YYYY-MM-DD (got ${value})`);
  return ms;
}

/**
 * RFC 9745's `Deprecation: @<epoch seconds>` (the day it was deprecated) and RFC 8594's `Sunset:
 * <HTTP-date>` (the day it stops answering), from the operation's `x-deprecated-at` and `x-sunset`.
 */
export function deprecationHeaders(raw: RawOperation): Array<[string, string]> {
  const since = dayOf(raw, 'x-deprecated-at');
  if (since === undefined) throw new Error(`${raw.operationId}: deprecated: true needs x-deprecated-at (YYYY-MM-DD)`);
  const headers: Array<[string, string]> = [['Deprecation', `@${since / 1000}`]];
  const sunset = dayOf(raw, 'x-sunset');
  if (sunset !== undefined) {
    if (sunset <= since) throw new Error(`${raw.operationId}: x-sunset must come after x-deprecated-at`);
    headers.push(['Sunset', new Date(sunset).toUTCString()]);
  }
  return headers;
}

/**
 * The longest value the query parameter `name` of `operationId` takes (its schema's maxLength): for
 * another interface that keeps REST's rules for the same parameter (GraphQL's arguments).
 */
export function queryParameterMaxLength(operationId: OperationId, name: string): number {
  const doc = readDocument();
  const op = listOperations(doc).find((candidate) => candidate.operationId === operationId);
  const schema = op?.parameters.find((p) => p.in === 'query' && p.name === name)?.schema as { maxLength?: number; items?: { maxLength?: number } } | undefined;
  // A list parameter (article_code=A,B) bounds each of its values.
  const max = schema?.maxLength ?? schema?.items?.maxLength;
  if (max === undefined) throw new Error(`${operationId} has no query parameter ${name} with a maxLength`);
  return max;
}

/** The values of the document's enum schema `name` (components.schemas), in its order: GraphQL's enums of the same name. */
export function schemaEnum(name: SchemaName): string[] {
  const schemas = readDocument().components.schemas as Record<string, { enum?: string[] }> | undefined;
  const values = schemas?.[name]?.enum;
  if (values === undefined) throw new Error(`The document has no enum schema ${name}`);
  return values;
}

/** True when the operation cannot be called without a token. */
export function requiresAuth(op: ContractOperation): boolean {
  return op.security.length > 0 && op.security.every((alternative) => alternative.length > 0);
}
