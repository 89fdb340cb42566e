/**
 * fast-check arbitraries built from the OpenAPI document: valid bodies, query and path parameters
 * generated from each operation's schemas ($ref, allOf, anyOf/oneOf, enum, bounds, lengths,
 * nullable, required, items, date-time and email formats), and the mutations the fuzzer sends:
 * a required field dropped, wrong types, out-of-range numbers, huge and odd strings, unknown
 * properties, bodies that are not objects, malformed JSON, wrong content types, a body over
 * 1 MiB, odd path ids and query values, bad X-Company-Id, Idempotency-Key and Authorization.
 */
import fc from 'fast-check';
import { readDocument, type ContractOperation, type Parameter } from '../../src/platform/openapi/document.js';

/**
 * Any code point but a lone surrogate, as fast-check's 'binary' unit gives, without the table of all
 * 1.1 million that the unit keeps for the rest of the process once it has shrunk a value (81 MB of
 * the test run's heap, which every later full collection had to walk).
 */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff - 0x800 }).map((n) => String.fromCodePoint(n < 0xd800 ? n : n + 0x800));

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/** Realistic values by field or parameter name (real ids of the world, known units), preferred over schema-only ones. */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

export type BodyPayload = { json: unknown } | { raw: string; type: string };

export interface FuzzRequest {
  label: string;
  path: string;
  query: Array<[string, string]>;
  body?: BodyPayload;
  /** Headers set over the caller's (X-Company-Id, Idempotency-Key, Authorization). */
  headers: Record<string, string>;
}

export interface FuzzContext {
  hints: Hints;
  /** Real values of a path parameter (ids of the world's resources), already URL-encoded. */
  pathValues(op: ContractOperation, name: string): string[];
}

const schemas = (readDocument().components as { schemas: Record<string, Schema> }).schemas;

/** The schema with $ref followed and allOf merged into one. */
export function flatten(schema: Schema): Schema {
  let s = schema;
  while (s.$ref) s = schemas[s.$ref.replace('#/components/schemas/', '')]!;
  if (!s.allOf) return s;
  const { allOf, ...rest } = s;
  return allOf.map(flatten).reduce<Schema>(
    (acc, part) => ({ ...part, ...acc, properties: { ...part.properties, ...acc.properties }, required: [...(part.required ?? []), ...(acc.required ?? [])] }),
    rest,
  );
}

export function requestSchema(op: ContractOperation): Schema | undefined {
  const body = op.raw.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined;
  return body?.content?.['application/json']?.schema;
}

const codePoints = (s: string): number => [...s].length;

const dateTime = fc
  .tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), fc.nat(3))
  .map(([d, form]) => {
    const iso = d.toISOString();
    return [iso, iso.replace('Z', '+02:00'), iso.replace(/\.(\d{3})Z$/, '.$1000Z'), iso.replace(/\.\d{3}Z$/, 'Z')][form]!;
  });

function stringOf(s: Schema): fc.Arbitrary<string> {
  if (s.format === 'date-time') return dateTime;
  if (s.format === 'email') return fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 255));
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 40, 40));
  return fc.oneof(
    { arbitrary: fc.string({ minLength, maxLength }), weight: 3 },
    { arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }).filter((v) => codePoints(v) <= (s.maxLength ?? Infinity)), weight: 1 },
  );
}

/** A value the schema accepts; `field` names the property, whose hint (if any) is preferred. */
export function valid(schema: Schema, hints: Hints = {}, field?: string): fc.Arbitrary<unknown> {
  const s = flatten(schema);
  const hint = field === undefined ? undefined : hints[field];
  const base = hint ? fc.oneof({ arbitrary: hint, weight: 6 }, { arbitrary: plain(s, hints), weight: 1 }) : plain(s, hints);
  return s.nullable ? fc.oneof({ arbitrary: base, weight: 8 }, { arbitrary: fc.constant(null), weight: 1 }) : base;
}

function plain(s: Schema, hints: Hints): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => valid(a, hints)));
  switch (s.type) {
    case 'string':
      return stringOf(s);
    case 'integer':
      return fc.integer({ min: s.minimum ?? -2_147_483_648, max: s.maximum ?? 2_147_483_647 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = s.minItems ?? 0;
      return fc.array(valid(s.items ?? {}, hints), { minLength, maxLength: Math.min(s.maxItems ?? minLength + 3, minLength + 3) });
    }
    default: {
      const properties = Object.entries(s.properties ?? {});
      if (properties.length === 0) {
        return s.additionalProperties ? fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) : fc.constant({});
      }
      const model = Object.fromEntries(properties.map(([name, p]) => [name, valid(p, hints, name)]));
      return fc.record(model, { requiredKeys: s.required ?? [] });
    }
  }
}

// ---- Mutations -------------------------------------------------------------------------------

type Path = Array<string | number>;
interface Slot {
  path: Path;
  schema: Schema;
  required: boolean;
}

/** Every field of `value` with its schema, nested objects and array items included. */
function slots(value: unknown, schema: Schema, path: Path = [], out: Slot[] = []): Slot[] {
  const s = flatten(schema);
  if (Array.isArray(value) && s.items) {
    value.forEach((v, i) => {
      out.push({ path: [...path, i], schema: flatten(s.items!), required: false });
      slots(v, s.items!, [...path, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const p = s.properties?.[k];
      if (!p) continue;
      out.push({ path: [...path, k], schema: flatten(p), required: s.required?.includes(k) ?? false });
      slots(v, p, [...path, k], out);
    }
  }
  return out;
}

/** A copy of `value` with `path` set (undefined: removed); keys such as __proto__ become own properties. */
function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  const copy: unknown = structuredClone(value);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) delete parent[last];
  else Object.defineProperty(parent, last, { value: replacement, enumerable: true, writable: true, configurable: true });
  return copy;
}

const label = (kind: string, path: Path): string => `${kind} ${path.join('.') || '(root)'}`;
const isNumeric = (s: Schema): boolean => s.type === 'integer' || s.type === 'number' || s.anyOf !== undefined;

export const ODD_STRINGS = [
  '', ' ', 'a\u0000b', '\u0000', '\u202eevil\u202c', 'שלום עולם', 'مرحبا', '😀👍🏽👨‍👩‍👧', '\ud800', '\udfff', '\ufeff', '\r\n\t\b\f',
  "'; DROP TABLE articles; --", '%00', '../../etc/passwd', '<script>alert(1)</script>', '${7*7}', 'ＡＢＣ１２３', 'İı', '\u0301', 'null',
];
const WRONG_TYPES: unknown[] = ['text', '12', 12345, -1, 1.5, true, false, null, [], [1, 'a'], {}, { a: 1 }];
const OUT_OF_RANGE: unknown[] = [0, -1, -0.5, 0.0005, 1.0001, 2_147_483_647, 2_147_483_648, 4_294_967_295, 4_294_967_296, 2 ** 53 + 1, 4e17, 2 ** 63, 1e21, 1e308, -1e308, 5e-324, '0', '-1', '1,0005', '1e3', ' 1 ', 'NaN', 'Infinity', '0x10', '99999999999999999999'];
export const EXTRA_KEYS = ['company_id', 'id', 'created_at', 'updated_at', 'password_hash', 'constructor', 'prototype', '__proto__', 'client_3pl_id', 'secret'];
const BIG = 1024 * 1024;

/** A huge string: up to ~100 kB (kept under the 1 MiB body limit once encoded). */
const HUGE_UNITS: Array<[string, number]> = [['x', 1], ['é', 2], ['😀', 4], ['\u202e', 3], ['\u0000', 6], ['"', 2], ['\\', 2]];
const hugeString = fc
  .tuple(fc.integer({ min: 256, max: 100_000 }), fc.constantFrom(...HUGE_UNITS))
  .map(([bytes, [unit, size]]) => unit.repeat(Math.max(1, Math.floor(bytes / size))));

/** A mutation of a valid body (whose schema is `schema`). */
function mutatedBody(value: unknown, schema: Schema): fc.Arbitrary<{ label: string; body: BodyPayload }> {
  const all = slots(value, schema);
  const json = (l: string, v: unknown) => ({ label: l, body: { json: v } });
  const options: Array<fc.WeightedArbitrary<{ label: string; body: BodyPayload }>> = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<{ label: string; body: BodyPayload }>) => options.push({ weight, arbitrary });
  const required = all.filter((s) => s.required);
  if (required.length) add(3, fc.constantFrom(...required).map((s) => json(label('drop', s.path), setAt(value, s.path, undefined))));
  if (all.length) {
    add(3, fc.tuple(fc.constantFrom(...all), fc.constantFrom(...WRONG_TYPES)).map(([s, v]) => json(label('wrong type', s.path), setAt(value, s.path, v))));
    const strings = all.filter((s) => s.schema.type === 'string');
    if (strings.length) {
      add(2, fc.tuple(fc.constantFrom(...strings), hugeString).map(([s, v]) => json(label(`huge string (${v.length})`, s.path), setAt(value, s.path, v))));
      const odd = fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.string({ unit: anyCodePoint, maxLength: 20 }));
      add(3, fc.tuple(fc.constantFrom(...strings), odd).map(([s, v]) => json(label('odd string', s.path), setAt(value, s.path, v))));
    }
    const numbers = all.filter((s) => isNumeric(s.schema));
    if (numbers.length) {
      add(3, fc.tuple(fc.constantFrom(...numbers), fc.constantFrom(...OUT_OF_RANGE)).map(([s, v]) => {
        const bound = v === 0 && s.schema.maximum !== undefined ? s.schema.maximum + 1 : v;
        return json(label('out of range', s.path), setAt(value, s.path, bound));
      }));
    }
  }
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  const at = (path: Path) => path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value);
  const objects: Path[] = [...(isObject(value) ? [[]] : []), ...all.filter((s) => isObject(at(s.path))).map((s) => s.path)];
  if (objects.length) add(3, fc.tuple(fc.constantFrom(...objects), fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ minLength: 1, maxLength: 12 })), fc.jsonValue({ maxDepth: 1 }))
    .map(([p, key, v]) => json(label(`extra property "${key}" in`, p), setAt(value, [...p, key], v ?? 1))));
  if (!('query' in (schema as object) || JSON.stringify(schema).includes('GraphQL'))) add(1, fc.constantFrom<unknown>([], [value], 'text', 42, null, true).map((v) => json(`not an object: ${JSON.stringify(v).slice(0, 40)}`, v)));
  const text = JSON.stringify(value);
  if (!JSON.stringify(schema).includes('GraphQL')) add(1, fc.constantFrom(
    { label: 'malformed JSON', body: { raw: text.slice(0, -1), type: 'application/json' } },
    { label: 'text/plain', body: { raw: text, type: 'text/plain' } },
    { label: 'form', body: { raw: 'a=1&b=2&items[0]=x', type: 'application/x-www-form-urlencoded' } },
    { label: 'xml', body: { raw: '<a>1</a>', type: 'application/xml' } },
    { label: 'latin1 charset', body: { raw: text, type: 'application/json; charset=latin1' } },
    { label: 'vendor json', body: { raw: text, type: 'application/vnd.api+json' } },
    { label: 'empty json', body: { raw: '', type: 'application/json' } },
  ));
  if (!JSON.stringify(schema).includes('GraphQL')) add(1, fc.constant({ label: 'body over 1 MiB', body: { raw: `{"pad":"${'x'.repeat(BIG + 64)}"}`, type: 'application/json' } }));
  return fc.oneof(...options);
}

// ---- Parameters ------------------------------------------------------------------------------

const paramsIn = (op: ContractOperation, where: Parameter['in']) => op.parameters.filter((p) => p.in === where);

export function validQuery(op: ContractOperation, hints: Hints): fc.Arbitrary<Array<[string, string]>> {
  const params = paramsIn(op, 'query');
  if (params.length === 0) return fc.constant([]);
  const model = Object.fromEntries(params.map((p) => [p.name, valid(p.schema ?? {}, hints, p.name).map(String)]));
  return fc.record(model, { requiredKeys: params.filter((p) => p.required).map((p) => p.name) }).map((q) => Object.entries(q) as Array<[string, string]>);
}

const ODD_QUERY = [
  'abc', '-1', '-0', '0', '00001', '1.5', '2147483648', '4294967296', '400000000000000000', '92233720368547758', '9223372036854775807', '9223372036854775808',
  '1e21', '1e300', '', ' ', 'x'.repeat(5000), '\u0000', '😀', 'null', '[]', '1e3', '0x10', 'NaN', '2026-13-45T99:99:99Z',
];

function mutatedQuery(op: ContractOperation, hints: Hints): fc.Arbitrary<{ label: string; query: Array<[string, string]> }> {
  const names = [...paramsIn(op, 'query').map((p) => p.name), ...(paramsIn(op, 'query').length ? ['foo', 'company_id', '__proto__', 'page[]'] : [])];
  if (names.length === 0) return fc.constant({ label: 'q', query: [] });
  return fc.tuple(validQuery(op, hints), fc.constantFrom(...names), fc.constantFrom(...ODD_QUERY), fc.boolean()).map(([query, name, value, twice]) => ({
    label: `query ${name}=${JSON.stringify(value.slice(0, 20))}${twice ? ' (twice)' : ''}`,
    query: [...query.filter(([k]) => k !== name), [name, value], ...(twice ? [[name, '1'] as [string, string]] : [])],
  }));
}

/**
 * Odd path ids, inserted as they are (already URL syntax). Not `..` or `.`: the contract check
 * reads the path as a URL, which drops dot segments, so it would judge another path than the one sent.
 */
export const ODD_IDS = ['0', '-1', '-0', '00001', '2147483648', '4294967296', '9007199254740993', '9223372036854775807', '9223372036854775808', '18446744073709551616', '1e21', 'abc', '%00', '1%00', '9'.repeat(400), 'a'.repeat(3000), '...', '..%2F..', '1.5', '1e3', '%20', '%2F', '%E2%80%AE', '%F0%9F%98%80', '%ZZ', '%', '0x1', '+1'];

function pathArb(op: ContractOperation, ctx: FuzzContext, odd: boolean): fc.Arbitrary<string> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return fc.constant(op.path);
  const value = (name: string): fc.Arbitrary<string> => {
    const real = ctx.pathValues(op, name);
    const schema = paramsIn(op, 'path').find((p) => p.name === name)?.schema ?? {};
    const generated = valid(schema).map((v) => encodeURIComponent(String(v)));
    if (odd) return fc.oneof(fc.constantFrom(...ODD_IDS), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent));
    return real.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 8 }, { arbitrary: generated, weight: 1 }) : generated;
  };
  return fc.tuple(...names.map(value)).map((values) => names.reduce((path, name, i) => path.replace(`{${name}}`, values[i]!), op.path));
}

const BAD_HEADERS: Array<[string, string]> = [
  ...['abc', '', '0', '-1', '2147483648', '1.5', ' 2', '2,3', '99999999999999999999', '0x2', '1e3'].map((v): [string, string] => ['X-Company-Id', v]),
  ['Idempotency-Key', 'k'.repeat(256)], ['Idempotency-Key', 'k'.repeat(4000)], ['Idempotency-Key', ''], ['Idempotency-Key', ' '],
  ['Authorization', 'Bearer not-a-token'], ['Authorization', 'Bearer '], ['Authorization', 'Basic dXNlcjpwYXNz'], ['Authorization', `Bearer ${'a'.repeat(600)}`],
];

/** Bodies sent to an operation that takes none. */
const UNEXPECTED_BODIES: Array<[string, BodyPayload]> = [
  ['unknown property', { json: { unexpected: 1 } }],
  ['mass assignment', { json: { company_id: 1, role: 'admin', is_super_admin: true } }],
  ['empty object', { json: {} }],
  ['array', { json: [1] }],
  ['malformed JSON', { raw: '{"a":', type: 'application/json' }],
  ['text/plain', { raw: 'hello', type: 'text/plain' }],
  ['latin1 charset', { raw: '{}', type: 'application/json; charset=latin1' }],
  ['over 1 MiB', { raw: `{"pad":"${'x'.repeat(BIG + 64)}"}`, type: 'application/json' }],
];

/** Valid requests (mostly) and mutated ones for one operation. */
export function requestArbitrary(op: ContractOperation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const schema = requestSchema(op);
  const body: fc.Arbitrary<BodyPayload | undefined> = schema ? valid(schema, ctx.hints).map((json) => ({ json })) : fc.constant(undefined);
  const key = op.idempotent ? fc.option(fc.uuid(), { freq: 3 }) : fc.constant(null);
  const base = fc.record({ path: pathArb(op, ctx, false), query: validQuery(op, ctx.hints), body, key }).map(
    ({ key: k, ...r }): Omit<FuzzRequest, 'label'> => ({ ...r, headers: k ? { 'Idempotency-Key': k } : {} }),
  );
  const options: Array<fc.WeightedArbitrary<FuzzRequest>> = [
    { weight: 4, arbitrary: base.map((r) => ({ ...r, label: 'valid' })) },
    { weight: 1, arbitrary: fc.tuple(base, mutatedQuery(op, ctx.hints)).map(([r, q]) => ({ ...r, ...q })) },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...BAD_HEADERS)).map(([r, [name, v]]) => ({ ...r, label: `header ${name}: ${v.slice(0, 24)}`, headers: { ...r.headers, [name]: v } })) },
  ];
  if (op.path.includes('{')) {
    options.push({ weight: 1, arbitrary: fc.tuple(base, pathArb(op, ctx, true)).map(([r, path]) => ({ ...r, path, label: `odd path ${path.slice(0, 60)}` })) });
  }
  if (schema) {
    const mutated = base.chain((r) => mutatedBody((r.body as { json: unknown }).json, schema).map((m) => ({ ...r, ...m })));
    options.push({ weight: 4, arbitrary: mutated });
  } else {
    // A GET body is never read: the server answers before a large one is sent, and supertest reports the cut upload as "aborted".
    const bodies = op.method === 'GET' ? UNEXPECTED_BODIES.filter(([l]) => l !== 'over 1 MiB') : UNEXPECTED_BODIES;
    options.push({ weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...bodies)).map(([r, [l, body]]) => ({ ...r, label: `unexpected body: ${l}`, body })) });
  }
  return fc.oneof(...options).map(withSummary);
}

/** Counterexamples print as one short line, not 100 kB of body. */
function withSummary(r: FuzzRequest): FuzzRequest {
  const body = r.body === undefined ? '' : 'json' in r.body ? JSON.stringify(r.body.json) ?? '' : `(${r.body.type}) ${r.body.raw}`;
  const summary = `[${r.label}] ${r.path.slice(0, 120)}${r.query.length ? `?${new URLSearchParams(r.query)}`.slice(0, 200) : ''} ${JSON.stringify(r.headers).slice(0, 120)} ${body.length > 400 ? `${body.slice(0, 400)}… (${body.length} chars)` : body}`;
  return Object.defineProperty(r, fc.toStringMethod, { value: () => summary, enumerable: false });
}
