/**
 * The real server process (`node --import tsx src/main.ts`, test/faults/server-process.ts) on a
 * copy of the demo SQLite database: slow clients are cut off by the server's timeouts, and SIGTERM
 * under load finishes what it accepted, stops the worker at once and exits. The process, its HTTP
 * server and its worker do the same on either engine, so the suite is part of the SQLite run only
 * (in the MariaDB run it is not defined, rather than run twice on the same SQLite file).
 */
import { expect } from 'chai';
import { createDb } from '../../src/platform/db/database.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testEnv } from '../helpers/test-env.js';
import { until } from '../helpers/net.js';
import { ACME, call, DEMO_LOGIN, login, rawConnection, removeFolders, startServer, type RawConnection, type ServerProcess } from './server-process.js';
import { undispatchedEvents } from '../fixtures/probes.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Node checks the headers and request timeouts every second (connectionsCheckingInterval). */
const CHECK_INTERVAL_MS = 1000;
const SLACK_MS = 1000;

function statusOf(text: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** How long the server took to close the connection (fails if it is still open after `limitMs`). */
async function closedWithin(connection: RawConnection, since: number, limitMs: number): Promise<{ ms: number; text: string }> {
  const closed = await Promise.race([connection.closed, sleep(limitMs + 3000).then(() => undefined)]);
  connection.destroy();
  expect(closed, `the connection is still open after ${limitMs + 3000} ms`).to.not.equal(undefined);
  const ms = closed!.at - since;
  expect(ms, `closed after ${ms} ms`).to.be.below(limitMs);
  return { ms, text: closed!.text };
}

/** A request as raw HTTP whose headers and first bytes of body are sent now; `finish()` sends the rest. */
async function startUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  payload: unknown,
  connectionHeader: 'close' | 'keep-alive' = 'close',
): Promise<{ finish(): Promise<{ at: number; text: string }> }> {
  const body = JSON.stringify(payload);
  const head = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Connection: ${connectionHeader}`,
    '',
    '',
  ].join('\r\n');
  const connection = await rawConnection(port);
  connection.write(head + body.slice(0, 10));
  return {
    finish: () => {
      connection.write(body.slice(10));
      return connection.closed;
    },
  };
}

/** The JSON lines the server process has written so far. */
function logLines(server: ServerProcess): Array<Record<string, unknown>> {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A sample of GET /metrics (the sum of the lines that start with `series`), or 0 when absent. */
async function metric(port: number, series: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${series} `))
    .reduce((sum, line) => sum + Number(line.slice(series.length + 1)), 0);
}

/** Defined in the SQLite run only (see above): not a skipped suite, which CI forbids. */
function inSqliteRun(title: string, suite: (this: Mocha.Suite) => void): void {
  if (testEnv.engine === 'sqlite') describe(title, suite);
}

inSqliteRun('The server process: slow clients, SIGTERM under load, the worker at shutdown', function () {
  this.timeout(60_000);
  const servers: ServerProcess[] = [];

  async function server(env: Record<string, string> = {}): Promise<ServerProcess> {
    const started = await startServer(env);
    servers.push(started);
    return started;
  }

  after(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    removeFolders();
  });

  describe('A slow client (HTTP_HEADERS_TIMEOUT_MS=1000, HTTP_REQUEST_TIMEOUT_MS=2000, HTTP_KEEP_ALIVE_TIMEOUT_MS=1000)', () => {
    let port: number;

    before(async () => {
      ({ port } = await server({ WORKER: 'off', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' }));
    });

    it('When a client sends part of its headers and then nothing, Then the server answers 408 with X-Request-Id and a message, closes the connection within the headers timeout, logs it and counts it', async () => {
      const connection = await rawConnection(port);
      const since = Date.now();
      connection.write('GET /api/articles HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const { text } = await closedWithin(connection, since, 1000 + CHECK_INTERVAL_MS + SLACK_MS);
      expect(statusOf(text)).to.equal(408);
      const id = /\r\nX-Request-Id: ([0-9a-f-]{36})\r\n/.exec(text)?.[1];
      expect(id, text).to.be.a('string');
      expect(text.endsWith('\r\n\r\n{"message":"The request did not arrive in full in time: send it again, whole."}'), text).to.equal(true);
      await until(async () => logLines(servers[0]!).some((line) => line.requestId === id), 5000, 'the log line');
      expect(logLines(servers[0]!).find((line) => line.requestId === id)).to.include({ msg: 'request headers not received in time', status: 408 });
      expect(await metric(port, 'tpl_http_client_errors_total{status="408"}')).to.be.at.least(1);
    });

    it('When a client sends bytes that are not HTTP, Then it is answered 400 with X-Request-Id and a message, and counted', async () => {
      const connection = await rawConnection(port);
      connection.write('HELLO THERE\r\n\r\n');
      const text = (await connection.closed).text;
      expect(statusOf(text)).to.equal(400);
      expect(text).to.match(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
      expect(text).to.include('{"message":"The request is not valid HTTP/1.1."}');
      expect(await metric(port, 'tpl_http_client_errors_total{status="400"}')).to.be.at.least(1);
    });

    it('When a request arrives whole in its headers and its chunked body is malformed, Then it is answered 400 with its X-Request-Id, and counted as that 400, not as the client going away', async () => {
      const connection = await rawConnection(port);
      connection.write('POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: bad-chunk-1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n');
      const text = (await connection.closed).text;
      expect(statusOf(text)).to.equal(400);
      expect(text).to.include('\r\nX-Request-Id: bad-chunk-1\r\n');
      // Counted as the 400 it was (its log line, at info, is below this server's LOG_LEVEL=warn).
      expect(await metric(port, 'tpl_http_request_duration_seconds_count{operation="createToken",method="POST",status="400"}')).to.be.at.least(1);
      expect(await metric(port, 'tpl_http_request_duration_seconds_count{operation="createToken",method="POST",status="499"}')).to.equal(0);
      expect(logLines(servers[0]!).filter((line) => line.requestId === 'bad-chunk-1'), 'no warn line of a client that went away').to.deep.equal([]);
    });

    it('When a client closes its side part-way through its body or its headers, Then the request is logged as aborted and counted as 499, and the cut headers are no client error; neither is a 400', async () => {
      const errorsBefore = await metric(port, 'tpl_http_client_errors_total{status="400"}');
      const tokens400 = 'tpl_http_request_duration_seconds_count{operation="createToken",method="POST",status="400"}';
      const tokens400Before = await metric(port, tokens400);
      const tokens499 = 'tpl_http_request_duration_seconds_count{operation="createToken",method="POST",status="499"}';
      const tokens499Before = await metric(port, tokens499);
      const upload = await rawConnection(port);
      upload.write('POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: gave-up-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":');
      await sleep(100);
      upload.end();
      expect(statusOf((await upload.closed).text), 'no answer to a client that went away').to.equal(undefined);
      await until(async () => logLines(servers[0]!).some((line) => line.requestId === 'gave-up-1'), 5000, 'the log line');
      expect(logLines(servers[0]!).filter((line) => line.requestId === 'gave-up-1').map((line) => line.msg)).to.deep.equal(['request aborted']);
      expect(await metric(port, tokens499)).to.equal(tokens499Before + 1);

      const headers = await rawConnection(port);
      headers.write('GET /api/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appl');
      await sleep(100);
      headers.end();
      expect(statusOf((await headers.closed).text)).to.equal(undefined);
      expect(await metric(port, 'tpl_http_client_errors_total{status="400"}')).to.equal(errorsBefore);
      expect(await metric(port, tokens400)).to.equal(tokens400Before);
    });

    it('When a client trickles a header line every 200 ms, Then it is closed within the headers timeout all the same', async () => {
      const connection = await rawConnection(port);
      const since = Date.now();
      connection.write('GET /api/articles HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      let n = 0;
      const trickle = setInterval(() => connection.write(`X-Slow-${n++}: 1\r\n`), 200);
      try {
        await closedWithin(connection, since, 1000 + CHECK_INTERVAL_MS + SLACK_MS);
      } finally {
        clearInterval(trickle);
      }
    });

    it('When a client sends its headers and then its body a byte every 100 ms, Then it is answered 408 and closed within the request timeout', async () => {
      const connection = await rawConnection(port);
      const since = Date.now();
      connection.write('POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{');
      const trickle = setInterval(() => connection.write(' '), 100);
      try {
        const { text } = await closedWithin(connection, since, 2000 + CHECK_INTERVAL_MS + SLACK_MS);
        expect(statusOf(text)).to.equal(408);
        // The request existed: the access log and the histogram report it as the 408 it was, not as the client's abort.
        const id = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(text)?.[1];
        await until(async () => logLines(servers[0]!).some((line) => line.requestId === id), 5000, 'the access log line');
        expect(logLines(servers[0]!).find((line) => line.requestId === id)).to.deep.include({ msg: 'request timed out', res: { statusCode: 408 } });
        expect(await metric(port, 'tpl_http_request_duration_seconds_count{operation="createToken",method="POST",status="408"}')).to.be.at.least(1);
      } finally {
        clearInterval(trickle);
      }
    });

    it('When a keep-alive connection stays idle after its answer, Then it is closed within the keep-alive timeout', async () => {
      const connection = await rawConnection(port);
      connection.write('GET /up HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const since = Date.now();
      const { text } = await closedWithin(connection, since, 1000 + CHECK_INTERVAL_MS + SLACK_MS);
      expect(statusOf(text), 'the request itself was answered').to.equal(200);
    });
  });

  describe('SIGTERM', () => {
    it('When SIGTERM arrives under load while uploads are still arriving, Then the uploads are answered 201, no request gets a 5xx, new connections are refused, and the process exits 0 soon after the last answer', async () => {
      const { port, child, exited } = await server();
      const token = await login(port);
      const headers = { Authorization: `Bearer ${token}`, 'X-Company-Id': String(ACME) };
      const article = (i: number) => ({ article_code: `SIGTERM-${Date.now()}-${i}`, description: 'Jar sent slowly', um3pl: 'BUC' });
      // The first asks to keep its connection: under way at the signal, it is answered Connection: close all the same.
      const uploads = await Promise.all([1, 2, 3].map((i) => startUpload(port, '/api/articles', headers, article(i), i === 1 ? 'keep-alive' : 'close')));

      let loading = true;
      type Outcome = { startedAt: number; status?: number; error?: string };
      const outcomes: Outcome[] = [];
      const load = Promise.all(
        Array.from({ length: 6 }, async () => {
          while (loading) {
            const startedAt = Date.now();
            const outcome: Outcome = await call(port, 'GET', '/api/articles?per_page=100', { headers, timeoutMs: 5000 }).then(
              (res) => ({ startedAt, status: res.status }),
              (error: NodeJS.ErrnoException) => ({ startedAt, error: error.code ?? error.message }),
            );
            outcomes.push(outcome);
            if (outcome.error) await sleep(20);
          }
        }),
      );
      // Under load before the signal: a dozen answers (counted, not timed: a busy machine is slow).
      await until(() => outcomes.filter((o) => o.status === 200).length >= 12, 20_000, 'a dozen answers before SIGTERM', 20);
      const signalledAt = Date.now();
      child.kill('SIGTERM');
      await sleep(300);
      const late = await call(port, 'GET', '/up', { timeoutMs: 2000 }).then(
        (res) => res.status,
        (error: NodeJS.ErrnoException) => error.code,
      );
      loading = false;
      await load;
      const answers = await Promise.all(uploads.map((upload) => upload.finish()));
      const exit = await exited;

      expect(answers.map((a) => statusOf(a.text)), 'the uploads under way').to.deep.equal([201, 201, 201]);
      expect(answers[0]!.text, 'the keep-alive upload under way at the signal').to.match(/\r\nConnection: close\r\n/i);
      expect(late, 'a new connection after SIGTERM').to.equal('ECONNREFUSED');
      expect(outcomes.filter((o) => o.status !== undefined && o.status >= 500), '5xx answers').to.deep.equal([]);
      const before = outcomes.filter((o) => o.startedAt < signalledAt - 20);
      expect(outcomes.filter((o) => o.status === 200 && o.startedAt < signalledAt).length, 'answers before SIGTERM').to.be.at.least(12);
      expect(before.filter((o) => o.status !== 200), 'requests sent before SIGTERM').to.deep.equal([]);
      expect(exit).to.include({ code: 0, signal: null });
      const lastAnswer = Math.max(...answers.map((a) => a.at));
      expect(exit.at - lastAnswer, 'exit after the last answer').to.be.below(2000);
    });

    describe('with the in-process worker holding sends', () => {
      let receiver: Receiver;

      before(async () => {
        receiver = await startReceiver('hang');
      });

      after(async () => {
        await receiver?.close();
      });

      it('When SIGTERM arrives while the worker holds sends and other deliveries wait, Then no send starts after it, the held ones are recorded, no claim is left, and the exit code is 0 even while a request keeps the server open', async () => {
        const s = await server({ WORKER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
        const token = await login(s.port);
        const headers = { Authorization: `Bearer ${token}`, 'X-Company-Id': String(ACME) };
        const hook = await call(s.port, 'POST', '/api/webhooks', { headers, body: { url: receiver.url, events: ['article.created'] } });
        expect(hook.status, hook.body).to.equal(201);
        const webhookId = (JSON.parse(hook.body) as { data: { id: number } }).data.id;
        for (let i = 0; i < 10; i++) {
          const article = await call(s.port, 'POST', '/api/articles', { headers, body: { article_code: `HOOK-${Date.now()}-${i}`, description: 'Jar', um3pl: 'BUC' } });
          expect(article.status, article.body).to.equal(201);
        }
        await receiver.waitFor(1, 10_000);
        // A request still arriving (a login: it records no event) keeps the HTTP server open past
        // the worker's send timeout.
        const upload = await startUpload(s.port, '/api/auth/token', {}, DEMO_LOGIN);
        await sleep(200);
        const sent = receiver.received.length;
        s.child.kill('SIGTERM');
        await sleep(2500);
        const answer = await upload.finish();
        const exit = await s.exited;

        expect(statusOf(answer.text)).to.equal(200);
        expect(exit).to.include({ code: 0, signal: null });
        expect(sent).to.be.within(1, 8);
        expect(receiver.received, 'sends after SIGTERM').to.have.length(sent);
        const db = createDb(`sqlite:${s.dbFile}`);
        try {
          const rows = (await db('webhook_deliveries').where('webhook_id', webhookId).select('status', 'claim_token')) as Array<{ status: string; claim_token: string | null }>;
          const waiting = await undispatchedEvents(db, ACME, 'article.created');
          const seen = `sent ${sent}, deliveries ${JSON.stringify(rows)}, events waiting ${waiting}`;
          expect(rows.filter((r) => r.status === 'retrying'), `the sends under way, recorded: ${seen}`).to.have.length(sent);
          expect(rows.filter((r) => r.status === 'pending').length + waiting, `deliveries and events still to send: ${seen}`).to.equal(10 - sent);
          expect(rows.filter((r) => r.claim_token !== null), 'claims left behind').to.deep.equal([]);
        } finally {
          await db.destroy();
        }
      });
    });
  });
});
