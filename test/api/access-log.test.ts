/**
 * The access log (src/platform/http/access-log.ts): one line a request when it ends, at the level
 * its status calls for, with the request id, method, url, status and time, and no credentials.
 */
import { expect } from 'chai';
import { connect, type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { buildApp, harness, type Harness } from '../helpers/harness.js';

interface Line {
  level: number;
  msg: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

/** The app and its access lines (`lines`) or every line it logged (`all`). */
async function loggingApp(level: string): Promise<{ h: Harness; lines: () => Line[]; all: () => Line[] }> {
  const out: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void out.push(line) });
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

  it('When a request is answered 200, Then one info line "request completed" names its id, method, url, status and time, and not its token', async () => {
    const { h, lines } = await loggingApp('info');
    const token = world.users.viewer.token;
    await api(h.app, { token, company: world.client.id }).get('/api/articles?per_page=2').set('X-Request-Id', 'log-200').expect(200);
    await settle();
    const mine = lines().filter((l) => l.req?.id === 'log-200');
    expect(mine).to.have.length(1);
    expect(mine[0]).to.deep.include({ level: 30, msg: 'request completed', req: { id: 'log-200', method: 'GET', url: '/api/articles?per_page=2' }, res: { statusCode: 200 } });
    expect(mine[0]!.responseTime).to.be.a('number').and.at.least(0);
    expect(JSON.stringify(lines())).not.to.include(token);
  });

  it('When production logs at warn, Then a 200 writes no line and a rejected token writes one warn line', async () => {
    const { h, lines } = await loggingApp('warn');
    await api(h.app, { token: world.users.viewer.token, company: world.client.id }).get('/api/articles').set('X-Request-Id', 'log-ok').expect(200);
    await api(h.app, { token: '3pl_pat_not-a-token', company: world.client.id }).get('/api/articles').set('X-Request-Id', 'log-401').expect(401);
    await settle();
    expect(lines().map((l) => [l.req?.id, l.level, l.res?.statusCode])).to.deep.equal([['log-401', 40, 401]]);
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
      while (!lines().some((l) => l.req?.id === 'log-gone') && Date.now() - started < 2000) await new Promise((resolve) => setTimeout(resolve, 20));
      const gone = lines().filter((l) => l.req?.id === 'log-gone');
      expect(gone.map((l) => [l.level, l.msg, l.res])).to.deep.equal([[40, 'request aborted', undefined]]);
      expect(all().filter((l) => l.level >= 50), 'error lines').to.deep.equal([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
