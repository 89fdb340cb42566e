/**
 * Every operation whose security requires a token answers 401 without one, with RFC 6750's
 * `WWW-Authenticate: Bearer` challenge (and `error="invalid_token"` when a refused token was sent),
 * as the document's 401 response says.
 */
import { harness, type Harness } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { expect } from 'chai';
import { concretePath, errorMessage, exampleBody, operations } from '../helpers/operations.js';
import { readDocument, requiresAuth } from '../../src/platform/openapi/document.js';

/** The header names the document declares on an operation's response `status` (references followed). */
function documentedHeaders(op: { method: string; path: string }, status: string): string[] {
  const document = readDocument() as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { responses: Record<string, unknown> } };
  let response = document.paths[op.path]![op.method.toLowerCase()]!.responses[status] as { $ref?: string; headers?: Record<string, unknown> };
  if (response.$ref) response = document.components.responses[response.$ref.split('/').pop()!] as typeof response;
  return Object.keys(response.headers ?? {});
}

describe('Sweep: no token', () => {
  let h: Harness;

  before(async () => {
    h = await harness();
  });

  for (const op of operations.filter(requiresAuth)) {
    it(`When ${op.method} ${op.path} is called without a token, Then it answers 401 Unauthenticated.`, async () => {
      const body = exampleBody(op);
      const req = api(h.app, { company: 1 }).request(op.method, concretePath(op));
      if (body !== undefined) req.send(body as object);
      const res = await req.expect(401);
      expect(errorMessage(op, res.body)).to.equal('Unauthenticated.');
      if (op.errorFormat === 'graphql') expect(res.body.errors[0].extensions.code).to.equal('UNAUTHENTICATED');
      else expect(res.body).to.deep.equal({ message: 'Unauthenticated.' });
      expect(res.headers['www-authenticate']).to.equal('Bearer realm="api"');
      expect(documentedHeaders(op, '401')).to.include('WWW-Authenticate');
    });
  }

  for (const op of operations.filter(requiresAuth).slice(0, 3)) {
    it(`When ${op.method} ${op.path} is called with an unknown token, Then the 401's challenge says invalid_token.`, async () => {
      const body = exampleBody(op);
      const req = api(h.app, { company: 1 }).request(op.method, concretePath(op)).set('Authorization', 'Bearer not-a-token');
      if (body !== undefined) req.send(body as object);
      const res = await req.expect(401);
      expect(res.headers['www-authenticate']).to.match(/^Bearer realm="api", error="invalid_token", error_description="[^"]+"$/);
    });
  }
});
