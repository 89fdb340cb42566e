/**
 * Deprecation and retirement, read from the document (docs/guide/versioning.md): an operation
 * marked `deprecated: true` with `x-deprecated-at` (and `x-sunset`) answers every request with
 * RFC 9745's `Deprecation` and RFC 8594's `Sunset`, and the derived document declares both on each
 * of its responses. No operation is deprecated yet, so these run on a test copy of the document.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { deprecationHeaders, readDocument, type OpenApiDocument, type RawOperation } from '../../src/platform/openapi/document.js';
import { derivePolicyResponses, type OpenApiDoc } from '../../codegen/derive-policy.js';
import { unchecked } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, testConfig } from '../helpers/harness.js';

/** The document with GET /livez deprecated with a sunset, and GET /api/articles without one. */
function deprecatedDocument(): OpenApiDocument {
  const document = structuredClone(readDocument()) as unknown as { paths: Record<string, Record<string, RawOperation>> };
  Object.assign(document.paths['/livez']!.get!, { deprecated: true, 'x-deprecated-at': '2027-01-01', 'x-sunset': '2027-07-01' });
  Object.assign(document.paths['/api/articles']!.get!, { deprecated: true, 'x-deprecated-at': '2027-02-15' });
  return document as unknown as OpenApiDocument;
}

describe('GET /livez and GET /api/articles when deprecated: Deprecation and Sunset', () => {
  let app: Awaited<ReturnType<typeof createApp>>['express'];
  let world: World;

  before(async () => {
    const shared = await harness();
    world = await createWorld(shared.app, shared.db);
    app = (await createApp({ config: testConfig(), db: shared.db, logger: pino({ level: 'silent' }), metrics: createMetrics() }, { document: deprecatedDocument(), notImplemented: [] })).express;
  });

  it('When a deprecated operation with a sunset answers, Then it carries Deprecation as @epoch-seconds and Sunset as an HTTP-date', async () => {
    const res = await unchecked(app).get('/livez').expect(200);
    expect(res.headers.deprecation).to.equal(`@${Date.UTC(2027, 0, 1) / 1000}`);
    expect(res.headers.sunset).to.equal('Thu, 01 Jul 2027 00:00:00 GMT');
  });

  it('When a deprecated operation without a sunset answers, a success or an error, Then it carries Deprecation and no Sunset', async () => {
    const ok = await unchecked(app, { token: world.users.viewer.token, company: world.client.id }).get('/api/articles').expect(200);
    expect(ok.headers.deprecation).to.equal(`@${Date.UTC(2027, 1, 15) / 1000}`);
    expect(ok.headers.sunset).to.equal(undefined);
    const refused = await unchecked(app).get('/api/articles').expect(401);
    expect(refused.headers.deprecation).to.equal(`@${Date.UTC(2027, 1, 15) / 1000}`);
  });

  it('When an operation is not deprecated, Then neither header is sent', async () => {
    const res = await unchecked(app).get('/readyz').expect(200);
    expect(res.headers).to.not.have.any.keys('deprecation', 'sunset');
  });

  it('When the document is derived, Then each response of a deprecated operation declares Deprecation (and Sunset when set), and a deprecated operation without x-deprecated-at is refused', () => {
    const operation = (extra: Record<string, unknown>) => ({
      openapi: '3.0.3',
      paths: { '/old': { get: { operationId: 'old', 'x-module': 'none', 'x-role': 'none', 'x-rate-limit': 'none', 'x-database': false, responses: { '200': { description: 'ok' } }, ...extra } } },
      components: { responses: {} },
    }) as unknown as OpenApiDoc;
    const doc = operation({ deprecated: true, 'x-deprecated-at': '2027-01-01', 'x-sunset': '2027-07-01' });
    derivePolicyResponses(doc);
    expect((doc.paths['/old']!.get!.responses as Record<string, { headers: Record<string, unknown> }>)['200']!.headers).to.deep.equal({
      Deprecation: { $ref: '#/components/headers/Deprecation' },
      Sunset: { $ref: '#/components/headers/Sunset' },
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
    });
    expect(() => derivePolicyResponses(operation({ deprecated: true }))).to.throw(/x-deprecated-at/);
    expect(() => deprecationHeaders({ operationId: 'old', deprecated: true, 'x-deprecated-at': '2027-07-01', 'x-sunset': '2027-01-01' } as RawOperation)).to.throw(/after/);
  });
});
