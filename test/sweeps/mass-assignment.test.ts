/**
 * Mass assignment is closed. Every write operation of the document refuses a body with a
 * property it does not know (at the top and inside its first nested object) with a 422 naming it,
 * operations without a body included; and no response, of any write or read, shows a password or
 * token hash, a webhook secret outside its creation or rotation, or an internal column.
 */
import { expect } from 'chai';
import type { ContractOperation } from '../../src/platform/openapi/document.js';
import { createToken, createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { internalColumns, leaks, showsSecret } from '../helpers/leaks.js';
import { concretePath, exampleBody, exampleOfQueryParameter, operations, requiredQueryExamples } from '../helpers/operations.js';
import { callerOf, successfulWrites } from '../helpers/successful-writes.js';
import { resourceOfPath } from '../fixtures/registry.js';

const UNKNOWN = 'mass_assigned';
const writes = operations.filter((op) => op.method !== 'GET' && op.method !== 'HEAD');
const reads = operations.filter((op) => op.method === 'GET');

type Json = Record<string, unknown>;

/** The field errors of a 422, REST (`errors`) or GraphQL (`errors[0].extensions.errors`). */
function fieldErrors(op: ContractOperation, body: Json): Record<string, string[]> {
  if (op.errorFormat === 'graphql') return ((body.errors as Array<{ extensions: Json }>)[0]!.extensions.errors ?? {}) as Record<string, string[]>;
  return (body.errors ?? {}) as Record<string, string[]>;
}

/** The path (`items.0`) of the first object nested in `value`, if any. */
function nestedObject(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (Array.isArray(child) && typeof child[0] === 'object' && child[0] !== null) return [...path, key, '0'];
    if (typeof child === 'object' && child !== null && !Array.isArray(child) && key !== 'variables' && key !== 'extensions') return [...path, key];
  }
  return undefined;
}

function withUnknown(body: unknown, at: string[]): unknown {
  const copy = structuredClone(body ?? {}) as Json;
  const target = at.reduce<Json>((node, key) => node[key] as Json, copy);
  target[UNKNOWN] = true;
  return copy;
}

describe('Sweep: mass assignment', () => {
  let h: Harness;
  let world: World;
  let internal: Set<string>;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    internal = await internalColumns(h.db);
  });

  it('When the document is read, Then it has writes and reads to sweep, and the database has internal columns to look for', () => {
    expect(writes.length).to.be.at.least(20);
    expect(reads.length).to.be.at.least(25);
    expect([...internal]).to.include.members(['password_hash', 'token_hash', 'claim_token', 'request_hash']);
  });

  describe('unknown properties', () => {
    for (const op of writes) {
      const example = exampleBody(op);
      const places = [[], ...(nestedObject(example) ? [nestedObject(example)!] : [])];
      for (const at of places) {
        const field = [...at, UNKNOWN].join('.');
        it(`When ${op.method} ${op.path} gets a body with the unknown property ${field}, Then it answers 422 naming it`, async () => {
          // Were the body read and ignored, the revocation would end the token of the tests after it.
          const token = op.operationId === 'revokeToken' ? await createToken(h.db, world.users.operator.id) : undefined;
          const sent = callerOf(h, world, op, token).request(op.method, concretePath(op)).send(withUnknown(example, at) as object);
          if (op.raw['x-bulk-items'] === true && at[0] === 'items') {
            // Each item of a bulk request stands alone: the item fails, naming the property within it.
            const res = await sent.expect(200);
            const item = res.body.data[Number(at[1])];
            expect(item.status).to.equal('failed');
            expect(item.errors).to.deep.equal({ [UNKNOWN]: [`The ${UNKNOWN} field is not allowed.`] });
            return;
          }
          const res = await sent.expect(422);
          expect(fieldErrors(op, res.body)).to.deep.equal({ [field]: [`The ${field} field is not allowed.`] });
        });
      }
    }
  });

  describe('responses of writes', () => {
    for (const op of writes) {
      it(`When ${op.method} ${op.path} succeeds, Then its body shows no credential and no internal column`, async () => {
        const recipe = successfulWrites[op.operationId];
        expect(recipe, `no resource declaration of test/fixtures/ has a request for ${op.operationId} in its writes`).to.not.equal(undefined);
        const req = await recipe!(world, h);
        const res = await callerOf(h, world, op, req.token).request(op.method, concretePath(op, req.params)).send(req.body as object);
        expect(res.status, res.text.slice(0, 300)).to.be.within(200, 299);
        expect(leaks(res.body, internal, showsSecret(op.operationId, req.body))).to.deep.equal([]);
      });
    }

    it('When a subscription is created, updated and rotated, Then only the creation and the rotation show the secret', async () => {
      const agent = world.as('providerAdmin', world.client.id);
      const created = await agent.post('/api/webhooks').send({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }).expect(201);
      expect(created.body.data.secret).to.be.a('string').and.not.equal('');
      const path = `/api/webhooks/${created.body.data.id}`;
      const updated = await agent.put(path).send({ description: 'Changed' }).expect(200);
      expect(updated.body.data).to.not.have.property('secret');
      const rotated = await agent.put(path).send({ rotate_secret: true }).expect(200);
      expect(rotated.body.data.secret).to.be.a('string').and.not.equal(created.body.data.secret);
      const read = await agent.get(path).expect(200);
      expect(leaks(read.body, internal)).to.deep.equal([]);
      expect(JSON.stringify(read.body)).to.not.include(rotated.body.data.secret);
    });
  });

  describe('responses of reads', () => {
    // The document itself names `password` and `secret` as properties of its schemas: it is not data.
    for (const op of reads.filter((r) => r.operationId !== 'getOpenApiDocument')) {
      it(`When ${op.method} ${op.path} answers with the world's data, Then its body shows no credential and no internal column`, async () => {
        // The resource's declaration names one of the world's client (its path or, for a query such as the lot trace's, its query).
        // GET /graphql's query is optional for the page only: a JSON read needs the document's example query.
        const query: Record<string, string | number> = op.operationId === 'getGraphql' ? { query: exampleOfQueryParameter(op, 'query') } : {};
        const params = { ...requiredQueryExamples(op), ...query, ...((await resourceOfPath(op.path)?.ownedBy(world, world.client.id)) ?? {}) };
        const res = await callerOf(h, world, op).get(concretePath(op, params)).expect(200);
        expect(leaks(res.body, internal)).to.deep.equal([]);
      });
    }
  });

  describe('the scan itself', () => {
    it('When a body shows a hash, a secret or an internal column, Then the scan names each, outside field errors', () => {
      const body = {
        data: { id: 1, password_hash: 'x', secret: 's', items: [{ token_hash: 'y', claim_token: 'z' }] },
        errors: { password_hash: ['The password_hash field is not allowed.'] },
      };
      expect(leaks(body, new Set(['claim_token']))).to.deep.equal(['data.password_hash', 'data.secret', 'data.items.0.token_hash', 'data.items.0.claim_token']);
      expect(leaks(body, new Set(['claim_token']), true)).to.deep.equal(['data.password_hash', 'data.items.0.token_hash', 'data.items.0.claim_token']);
    });
  });
});
