/**
 * The access log (src/platform/http/access-log.ts): one JSON line a request when it ends, at the
 * level its status calls for (4xx at info, 5xx at error), with the request id under the key every
 * line about a request uses, the operation, company, user or integration, method, url, user agent,
 * status, size and time, an ISO time, and no credentials.
 */
import { expect } from 'chai';
import { connect, type AddressInfo } from 'node:net';
import { createLogger } from '../../src/platform/logger.js';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { buildApp, ETSM_TEST_TOKEN, harness, type Harness } from '../helpers/harness.js';
import { testEnv } from '../helpers/test-env.js';
import { closedPort } from '../helpers/net.js';
import { createDb } from '../../src/platform/db/database.js';

interface Line {
  level: number;
  time: string;
  msg: string;
  requestId?: string;
  operation?: string;
  company?: number;
  user?: number;
  integration?: string;
  req?: { method: string; url: string; userAgent?: string };
  res?: { statusCode: number; size?: number };
  responseTime?: number;
  err?: { message: string };
}

/** The app and its access lines (`lines`) or every line it logged (`all`). */
async function loggingApp(level: string): Promise<{ h: Harness; lines: () => Line[]; all: () => Line[] }> {
  const out: string[] = [];
  const logger = createLogger({ logLevel: level as 'info', appName: 'access-log-test' }, { write: (line: string) => void out.push(line) });
  const h = await buildApp({ deps: { logger } });
  const all = (): Line[] => out.map((line) => JSON.parse(line) as Line);
  return { h, lines: () => all().filter((l) => l.req !== undefined), all };
}

/** Waits a moment for 'finish'/'close' listeners that run after supertest has its answer. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

describe('Access log', () => {
  let world: World;

  before(async () => {
    const shared = await harness();
    world = await createWorld(shared.app, shared.db);
  });

  it('When a request is answered 200, Then one info line "request completed" names its id, operation, company, user, method, url, user agent, status, size and time, with an ISO time and not its token', async () => {
    const { h, lines } = await loggingApp('info');
    const token = world.users.viewer.token;
    const res = await api(h.app, { token, company: world.client.id })
      .get('/api/articles?per_page=2')
      .set('X-Request-Id', 'log-200')
      .set('User-Agent', 'erp-sync/4.2')
      .expect(200);
    await settle();
    const mine = lines().filter((l) => l.requestId === 'log-200');
    expect(mine).to.have.length(1);
    expect(mine[0]).to.deep.include({
      level: 30,
      msg: 'request completed',
      operation: 'listArticles',
      company: world.client.id,
      user: world.users.viewer.id,
      req: { method: 'GET', url: '/api/articles?per_page=2', userAgent: 'erp-sync/4.2' },
      res: { statusCode: 200, size: Number(res.headers['content-length']) },
    });
    expect(mine[0]!.time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(mine[0]!.responseTime).to.be.a('number').and.at.least(0);
    expect(JSON.stringify(lines())).not.to.include(token);
  });

  it('When an integration calls, Then its line names the integration instead of a user', async () => {
    const { h, lines } = await loggingApp('info');
    await api(h.app, { token: ETSM_TEST_TOKEN }).get('/api/integrations/etsm/ping').set('X-Request-Id', 'log-etsm').expect(200);
    await settle();
    const [line] = lines().filter((l) => l.requestId === 'log-etsm');
    expect(line).to.deep.include({ integration: 'etsm', operation: 'pingEtsm' });
    expect(line).to.not.have.property('user');
  });

  it('When production logs at warn, Then neither a 200 nor a rejected token (4xx, logged at info) writes a line', async () => {
    const { h, lines } = await loggingApp('warn');
    await api(h.app, { token: world.users.viewer.token, company: world.client.id }).get('/api/articles').set('X-Request-Id', 'log-ok').expect(200);
    await api(h.app, { token: '3pl_pat_not-a-token', company: world.client.id }).get('/api/articles').set('X-Request-Id', 'log-401').expect(401);
    await api(h.app).get('/wp-admin/setup.php').set('X-Request-Id', 'log-404').expect(404);
    await settle();
    expect(lines()).to.deep.equal([]);
  });

  it('When a request is refused 4xx, Then its line is at info, with its status', async () => {
    const { h, lines } = await loggingApp('info');
    await api(h.app, { token: '3pl_pat_not-a-token', company: world.client.id }).get('/api/articles').set('X-Request-Id', 'log-401i').expect(401);
    await settle();
    expect(lines().filter((l) => l.requestId === 'log-401i').map((l) => [l.level, l.res?.statusCode, l.operation])).to.deep.equal([[30, 401, 'listArticles']]);
  });

  it('When the database is down, Then a probe\'s 503 (/readyz, /health) is logged at info, the state it was asked for, and a data request\'s 503 at error', async () => {
    const out: string[] = [];
    const logger = createLogger({ logLevel: 'info', appName: 'access-log-test' }, { write: (line: string) => void out.push(line) });
    const dead = createDb(`mysql://root@127.0.0.1:${await closedPort()}/none`);
    (dead.client as { logger: { warn: (message: string) => void } }).logger.warn = () => undefined;
    try {
      const h = await buildApp({ deps: { logger, db: dead } });
      await api(h.app).get('/readyz').set('X-Request-Id', 'log-ready').timeout(8000).expect(503);
      await api(h.app).get('/health').set('X-Request-Id', 'log-health').timeout(8000).expect(503);
      await api(h.app, { token: world.users.viewer.token, company: world.client.id }).get('/api/articles').set('X-Request-Id', 'log-data').timeout(15000).expect(503);
      await settle();
      const levels = out.map((line) => JSON.parse(line) as Line).filter((l) => l.req !== undefined).map((l) => [l.requestId, l.level, l.res?.statusCode]);
      expect(levels).to.deep.equal([['log-ready', 30, 503], ['log-health', 30, 503], ['log-data', 50, 503]]);
    } finally {
      await dead.destroy();
    }
  });

  it('When the client goes away before its body has arrived, Then the request is logged as aborted at warn, not as an error', async () => {
    const { h, lines, all } = await loggingApp('info');
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST /api/articles HTTP/1.1\r\nHost: x\r\nX-Request-Id: log-gone\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"article_code":',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const started = Date.now();
      while (!lines().some((l) => l.requestId === 'log-gone') && Date.now() - started < 2000) await new Promise((resolve) => setTimeout(resolve, 20));
      const gone = lines().filter((l) => l.requestId === 'log-gone');
      expect(gone.map((l) => [l.level, l.msg, l.res])).to.deep.equal([[40, 'request aborted', undefined]]);
      expect(all().filter((l) => l.level >= 50), 'error lines').to.deep.equal([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('When a client puts a credential in the query string, Then the line keeps the parameter and redacts its value; other parameters stay as sent', async () => {
    const { h, lines } = await loggingApp('info');
    await api(h.app).post('/api/auth/token?password=SECRETX5&next=%2Fhome').set('X-Request-Id', 'log-query-secret').send({ email: 'nobody@example.test', password: 'x' });
    await api(h.app, { token: 'not-a-token' }).get('/api/articles?access_token=SECRETX7&per_page=2&API%5FKey=SECRETX8').set('X-Request-Id', 'log-query-token');
    await settle();
    const urls = lines()
      .filter((l) => String(l.requestId).startsWith('log-query-'))
      .map((l) => (l.req as { url: string }).url);
    expect(urls).to.deep.equal(['/api/auth/token?password=[redacted]&next=%2Fhome', '/api/articles?access_token=[redacted]&per_page=2&API%5FKey=[redacted]']);
    expect(JSON.stringify(lines())).not.to.match(/SECRETX/);
  });

  it('When the client goes away after sending its whole request, before the answer (its timeout), Then it is logged as abandoned at warn, without a status, counted as 499, and the work still completes', async () => {
    const { h, lines, all } = await loggingApp('info');
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    // The answer is held back until the client has gone: the client's articles are locked (MySQL;
    // on SQLite the transaction holds the one connection).
    const holder = await h.db.transaction();
    const held = holder('articles').where('company_id', world.client.id).select('id');
    await (testEnv.engine === 'mysql' ? held.forUpdate() : held);
    let released = false;
    const release = async (): Promise<void> => {
      if (!released) await holder.rollback();
      released = true;
    };
    try {
      const { port } = server.address() as AddressInfo;
      const code = `GONE-${Date.now()}`;
      const items = Array.from({ length: 300 }, (_, i) => ({ article_code: `${code}-${i}`, description: 'Left before the answer', um3pl: 'BUC' }));
      const body = JSON.stringify({ items });
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /api/articles/bulk HTTP/1.1\r\nHost: x\r\nX-Request-Id: log-abandoned\r\nAuthorization: Bearer ${world.users.operator.token}\r\n` +
          `X-Company-Id: ${world.client.id}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.resetAndDestroy(); // as a client's timeout does (fetch's abort): the server sees the connection reset
      const started = Date.now();
      while (!lines().some((l) => l.requestId === 'log-abandoned') && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 20));
      await release();
      const gone = lines().filter((l) => l.requestId === 'log-abandoned');
      expect(gone.map((l) => [l.level, l.msg, l.res])).to.deep.equal([[40, 'request abandoned', undefined]]);
      // Counted too, under 499 (the client closed the request), so the slowest requests stay in the histogram.
      expect(await h.deps.metrics.registry.metrics()).to.match(/^tpl_http_request_duration_seconds_count\{operation="bulkUpsertArticles",method="POST",status="499"\} 1$/m);
      while ((await h.db('articles').where('article_code', 'like', `${code}-%`).count({ n: '*' }).first())?.n != 300 && Date.now() - started < 10_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(Number((await h.db('articles').where('article_code', 'like', `${code}-%`).count({ n: '*' }).first())?.n), 'articles written').to.equal(300);
      await settle();
      expect(all().filter((l) => l.level >= 50), 'error lines').to.deep.equal([]);
    } finally {
      await release();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
