/**
 * A GraphQL query that fails unexpectedly (a bug, not the client's mistake) is answered masked and
 * logged once at error with the request's id, the key its access line carries too.
 */
import { expect } from 'chai';
import { createLogger } from '../../src/platform/logger.js';
import { api } from '../helpers/api.js';
import { createWorld } from '../helpers/factories.js';
import { isolatedHarness, type Isolated } from '../helpers/harness.js';

describe('POST /graphql: the log of an unexpected error', () => {
  let h: Isolated | undefined;

  after(async () => {
    await h?.close();
  });

  it('When a resolver fails unexpectedly, Then one error line says so with the request id, and the access line has the same id', async () => {
    const out: string[] = [];
    h = await isolatedHarness({ logger: createLogger({ logLevel: 'info', appName: 'graphql-error-log' }, { write: (line: string) => void out.push(line) }) });
    const world = await createWorld(h.app, h.db);
    await h.db.schema.renameTable('articles', 'articles_gone');
    const res = await api(h.app, { token: world.users.viewer.token, company: world.client.id })
      .post('/graphql')
      .set('X-Request-Id', 'gql-broken')
      .send({ query: '{ articles(limit: 1) { id } }' })
      .expect(200);
    expect(res.body.errors[0].extensions.code).to.equal('INTERNAL_SERVER_ERROR');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lines = out.map((l) => JSON.parse(l) as { level: number; msg: string; requestId?: string });
    expect(lines.filter((l) => l.level >= 50).map((l) => [l.msg, l.requestId])).to.deep.equal([['graphql query failed', 'gql-broken']]);
    expect(lines.some((l) => l.msg === 'request completed' && l.requestId === 'gql-broken')).to.equal(true);
    await h.db.schema.renameTable('articles_gone', 'articles');

    // The client's mistakes (a 422 of a service, here an unknown cursor) are answered with their code and logged at no error level.
    out.length = 0;
    const mistaken = await api(h.app, { token: world.users.viewer.token, company: world.client.id })
      .post('/graphql')
      .send({ query: '{ stock_movements(after: 999999) { id } }' })
      .expect(200);
    expect(mistaken.body.errors[0].extensions.code).to.equal('BAD_USER_INPUT');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(out.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50)).to.deep.equal([]);
  });
});
