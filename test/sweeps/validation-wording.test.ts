/**
 * No validator's raw wording reaches a client. Every parameter of every operation gets values the
 * validator refuses (a comma list, reserved characters, an empty value, a wrong type, a broken
 * percent-encoding) and every operation an unknown query parameter; every body field a value of the
 * wrong type. Each 422 must be keyed by the field as sent and say what to fix in a sentence of the
 * house style, never the phrases of express-openapi-validator or ajv.
 */
import { expect } from 'chai';
import type { ContractOperation } from '../../src/platform/openapi/document.js';
import { readDocument } from '../../src/platform/openapi/document.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { concretePath, exampleBody, operations } from '../helpers/operations.js';
import { callerOf } from '../helpers/successful-writes.js';

type Json = Record<string, unknown>;

/** Phrases of express-openapi-validator and ajv that must never reach a client. */
const RAW = /Parameter '|must be url encoded|Empty value found|Unknown query parameter|malformed uri|must NOT|must match|should |must have required|must be equal to|request\/|\/body|\/query|\/params|\/headers|\bajv\b|errorCode|\bundefined\b/;
/** A house-style sentence: capital first, a full stop last. */
const SENTENCE = /^[A-Z].*[.]$/s;

const BAD_VALUES = ['8,9', 'a;b', '', 'x y', '[1]', '%E0%A4%A', '-1', '1.5', 'true', 'null', '9'.repeat(30)];

function fieldErrors(op: ContractOperation, body: Json): Record<string, string[]> {
  if (op.errorFormat === 'graphql') return ((body.errors as Array<{ extensions: Json }> | undefined)?.[0]?.extensions.errors ?? {}) as Record<string, string[]>;
  return (body.errors ?? {}) as Record<string, string[]>;
}

/** The properties of the operation's JSON body schema, resolved. */
function bodyProperties(op: ContractOperation): Record<string, Json> {
  const media = (op.raw.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content?.['application/json'];
  let schema = media?.schema;
  const schemas = (readDocument().components as { schemas: Record<string, Json> }).schemas;
  while (schema && typeof schema.$ref === 'string') schema = schemas[schema.$ref.replace('#/components/schemas/', '')];
  return (schema?.properties ?? {}) as Record<string, Json>;
}

describe('Sweep: validator wording', () => {
  let h: Harness;
  let world: World;
  const seen: Array<{ where: string; field: string; message: string }> = [];

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  function collect(where: string, op: ContractOperation, status: number, body: Json): void {
    if (status !== 422 && status !== 400) return;
    if (status === 400) seen.push({ where, field: '', message: String(body.message ?? (body.errors as Array<{ message: string }>)?.[0]?.message) });
    for (const [field, messages] of Object.entries(fieldErrors(op, body))) for (const message of messages) seen.push({ where, field, message });
  }

  for (const op of operations) {
    it(`When ${op.method} ${op.path} gets bad parameters and bad body values, Then every message is a house-style sentence keyed as sent`, async function () {
      this.timeout(60_000);
      const call = (path: string, body?: unknown) => {
        const req = callerOf(h, world, op).request(op.method, path);
        return body === undefined ? req : req.send(body as object);
      };
      const example = exampleBody(op);
      const base = concretePath(op);
      const separator = base.includes('?') ? '&' : '?';
      for (const parameter of op.parameters.filter((p) => p.in === 'query')) {
        for (const value of BAD_VALUES) {
          const res = await call(`${base}${separator}${parameter.name}=${value}`, example);
          collect(`${op.method} ${op.path} ?${parameter.name}=${value}`, op, res.status, res.body);
        }
      }
      for (const parameter of op.parameters.filter((p) => p.in === 'path')) {
        for (const value of BAD_VALUES.filter((v) => v !== '')) {
          const res = await call(op.path.replace(`{${parameter.name}}`, value).replace(/\{[^}]+\}/g, '1'), example);
          collect(`${op.method} ${op.path} {${parameter.name}}=${value}`, op, res.status, res.body);
        }
      }
      const unknown = await call(`${base}${separator}not_a_parameter=1`, example);
      collect(`${op.method} ${op.path} ?not_a_parameter`, op, unknown.status, unknown.body);
      if (example !== undefined && typeof example === 'object' && example !== null && op.errorFormat !== 'graphql') {
        for (const [name, schema] of Object.entries(bodyProperties(op))) {
          const wrong = schema.type === 'string' ? 12 : schema.type === 'array' ? 'x' : schema.type === 'object' ? [1] : 'x';
          const res = await call(base, { ...(example as Json), [name]: wrong });
          collect(`${op.method} ${op.path} body.${name}`, op, res.status, res.body);
        }
      }
    });
  }

  it('When all the answers are read, Then there were many, none with raw wording, each a sentence', () => {
    expect(seen.length).to.be.at.least(500);
    if (process.env.SHOW_WORDING) console.log([...new Set(seen.map((s) => s.message.replace(/\d+/g, 'N')))].join('\n'));
    const raw = seen.filter((s) => RAW.test(s.message) || !SENTENCE.test(s.message));
    const sample = [...new Map(raw.map((r) => [r.message.replace(/'[^']*'/g, "'…'"), r])).values()].slice(0, 20);
    expect(sample.map((r) => `${r.where} [${r.field}] ${r.message}`)).to.deep.equal([]);
  });
});
