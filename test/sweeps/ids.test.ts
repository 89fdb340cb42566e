/**
 * Every id the document shows fits a signed 32-bit integer: each integer named as an id (`id`,
 * `*_id`, `*Id`, `X-Company-Id`, the article sync cursors) says `format: int32`, and each one a
 * client sends (a path, query or header parameter, a request body field) also says
 * `maximum: 2147483647`, so the validator answers a 422 before a larger one reaches the database.
 * `X-Company-Id` is a header, typed as the text it is (digits, at most 10): the request path
 * answers a 422 above 2147483647 (test/api/tenancy.test.ts).
 */
import { expect } from 'chai';
import { readDocument } from '../../src/platform/openapi/document.js';

type Json = Record<string, unknown>;
const ID = /^(id|[a-z0-9_]+_id|[a-z0-9]+Id|X-Company-Id|cursor|next_cursor)$/;
const doc = readDocument() as unknown as Json & { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json>; parameters: Record<string, Json> } };

function resolve(node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const [, , kind, name] = ref.split('/');
  return resolve((doc.components as unknown as Record<string, Record<string, Json>>)[kind!]![name!]!);
}

/** Every integer id in `schema`, as [path, schema] pairs, following $refs, allOf/anyOf/oneOf and arrays. */
function idsIn(schema: Json, path: string, seen = new Set<Json>()): Array<[string, Json]> {
  const node = resolve(schema);
  if (seen.has(node)) return [];
  seen.add(node);
  const found: Array<[string, Json]> = [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const part of (node[key] as Json[] | undefined) ?? []) found.push(...idsIn(part, path, seen));
  }
  if (node.items) found.push(...idsIn(node.items as Json, `${path}[]`, seen));
  for (const [name, child] of Object.entries((node.properties as Record<string, Json> | undefined) ?? {})) {
    const resolved = resolve(child);
    if (ID.test(name) && resolved.type === 'integer') found.push([`${path}.${name}`, resolved]);
    found.push(...idsIn(child, `${path}.${name}`, seen));
  }
  return found;
}

const inputs: Array<[string, Json]> = [];
const outputs: Array<[string, Json]> = [];
const companyHeaders: Array<[string, Json]> = [];
for (const [route, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    const where = `${method.toUpperCase()} ${route}`;
    for (const p of ((op.parameters as Json[] | undefined) ?? []).map(resolve)) {
      const schema = resolve(p.schema as Json);
      if (ID.test(p.name as string) && schema.type === 'integer') inputs.push([`${where} ${p.in} ${p.name as string}`, schema]);
      if (p.name === 'X-Company-Id') companyHeaders.push([where, schema]);
    }
    const body = (op.requestBody as { content?: Record<string, { schema: Json }> } | undefined)?.content?.['application/json'];
    if (body) inputs.push(...idsIn(body.schema, `${where} body`));
    for (const [status, response] of Object.entries((op.responses as Record<string, Json>) ?? {})) {
      const content = (resolve(response).content as Record<string, { schema: Json }> | undefined)?.['application/json'];
      if (content) outputs.push(...idsIn(content.schema, `${where} ${status}`));
    }
  }
}

describe('Sweep: ids are 32-bit integers', () => {
  it('When the document is read, Then it has ids to check in requests and responses', () => {
    expect(inputs.length).to.be.at.least(40);
    expect(outputs.length).to.be.at.least(60);
    expect(companyHeaders.length).to.be.at.least(40);
  });

  it('When X-Company-Id is a parameter, Then it is a string of digits, leading zeros allowed as in integer parameters', () => {
    const wrong = companyHeaders.filter(([, s]) => s.type !== 'string' || s.pattern !== '^0*[1-9][0-9]{0,9}$');
    expect(wrong.map(([where]) => where)).to.deep.equal([]);
  });

  it('When an id is in a response, Then it says format int32', () => {
    expect(outputs.filter(([, s]) => s.format !== 'int32').map(([where]) => where)).to.deep.equal([]);
  });

  it('When an id is in a request, Then it says format int32 and maximum 2147483647', () => {
    expect(inputs.filter(([, s]) => s.format !== 'int32' || s.maximum !== 2147483647).map(([where]) => where)).to.deep.equal([]);
  });
});
