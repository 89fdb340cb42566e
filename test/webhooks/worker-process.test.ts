/**
 * The webhook worker as its own process (`node --import tsx src/worker.ts`), on a database another
 * process can open (MariaDB, or a temporary SQLite file): killed with SIGKILL while the receiver
 * holds a request open, it loses nothing; the next process sends everything, the held delivery again
 * once its lease (WEBHOOK_TIMEOUT_MS + 20 s) has ended; SIGTERM stops a worker cleanly.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorld } from '../helpers/factories.js';
import { OK, startReceiver, type Receiver } from '../helpers/receiver.js';
import { createArticle, deliveries, isolatedApp, outboxIds, subscribe, type Isolated } from './support.js';
import { closedPort, until } from '../helpers/net.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT_MS = 500;

interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

describe('The webhook worker process', function () {
  this.timeout(120_000);
  let h: Isolated;
  let receiver: Receiver;
  const processes: WorkerProcess[] = [];

  function startWorker(extraEnv: Record<string, string> = {}): WorkerProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
      cwd: ROOT,
      env: {
        DATABASE_URL: h.url,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WORKER_POLL_MS: '50',
        LOG_LEVEL: 'info',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const started = { child, output, exited };
    processes.push(started);
    return started;
  }

  before(async () => {
    h = await isolatedApp({ file: true });
    receiver = await startReceiver();
  });

  after(async () => {
    for (const { child, exited } of processes) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    await receiver?.close();
    await h?.close();
  });

  it('When a worker process is killed (SIGKILL) while the receiver holds a request, Then another process delivers every event, the held one again after the lease, and SIGTERM ends it with exit code 0', async () => {
    const world = await createWorld(h.app, h.db);
    const { id: webhookId, secret } = await subscribe(world, receiver.url, ['article.created']);
    const answered = (): Set<string> => new Set(receiver.received.filter((r) => r.answer !== 'hang').map((r) => String(r.headers['webhook-id'])));

    for (let i = 0; i < 3; i++) await createArticle(world);
    const first = startWorker();
    await until(() => answered().size === 3, 30_000, 'the first process to deliver 3 events', 25);

    receiver.setDefault('hang');
    await createArticle(world);
    await receiver.waitFor(4, 10_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).to.deep.equal({ code: null, signal: 'SIGKILL' });
    const held = receiver.received[3]!;
    expect(held.answer).to.equal('hang');
    await createArticle(world); // while no worker runs
    receiver.releaseHeld({ status: 500 }); // too late: nobody listens for this answer any more

    receiver.setDefault(OK);
    const second = startWorker();
    const events = await outboxIds(h.db, world.client.id);
    expect(events).to.have.length(5);
    await until(() => events.every((id) => answered().has(id)), 60_000, 'the second process to deliver every event', 25);

    const heldId = String(held.headers['webhook-id']);
    const again = receiver.received.filter((r) => r.headers['webhook-id'] === heldId);
    expect(again, 'the held delivery is sent again').to.have.length(2);
    expect(again[1]!.at - again[0]!.at, 'not before its lease ended').to.be.at.least(20_000 + TIMEOUT_MS - 1000);
    await until(async () => (await deliveries(world, webhookId)).every((d) => d.status === 'delivered'), 10_000, 'the log to say delivered', 25);
    expect(await deliveries(world, webhookId)).to.have.length(5);

    second.child.kill('SIGTERM');
    expect(await second.exited).to.deep.equal({ code: 0, signal: null });
    const log = [...first.output, ...second.output].join('');
    expect(log).to.include('webhook worker started').and.include('webhook worker stopping');
    expect(log).to.not.include(secret.slice('whsec_'.length));
  });

  it('When SIGTERM arrives while 8 sends are held (4 to each of two companies\' subscriptions, its bound) and 2 more are due, Then the sends under way finish and are recorded, the rest are released, and the exit code is 0', async () => {
    const world = await createWorld(h.app, h.db);
    const otherWorld = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, receiver.url, ['article.created']);
    const { id: otherId } = await subscribe(otherWorld, `${receiver.url}?other`, ['article.created']);
    receiver.setDefault('hang');
    const seen = receiver.received.length;
    for (let i = 0; i < 5; i++) await createArticle(world);
    for (let i = 0; i < 5; i++) await createArticle(otherWorld);
    const worker = startWorker();
    await receiver.waitFor(seen + 8, 30_000);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).to.deep.equal({ code: 0, signal: null });

    expect(receiver.received).to.have.length(seen + 8);
    const log = [...(await deliveries(world, webhookId)), ...(await deliveries(otherWorld, otherId))];
    expect(log.map((d) => d.status).sort()).to.deep.equal([...Array<string>(2).fill('pending'), ...Array<string>(8).fill('retrying')]);
    for (const d of log.filter((row) => row.status === 'retrying')) expect(d.last_error).to.match(new RegExp(`${TIMEOUT_MS} ms`));
    const claimed = await h.db('webhook_deliveries').whereIn('webhook_id', [webhookId, otherId]).whereNotNull('claim_token').count({ n: '*' });
    expect(Number(claimed[0]!.n), 'no claim left behind').to.equal(0);
  });

  it('When the worker runs with WORKER_METRICS_PORT, Then GET /metrics there counts its delivery attempts and shows the backlogs it sampled, with an X-Request-Id like the API; another path is a 404; a port in use ends the start with exit 1', async () => {
    const world = await createWorld(h.app, h.db);
    await subscribe(world, receiver.url, ['article.created']);
    receiver.setDefault(OK);
    const seen = receiver.received.length;
    await createArticle(world);
    const port = await closedPort();
    const worker = startWorker({ WORKER_METRICS_PORT: String(port), HOST: '127.0.0.1' });
    await receiver.waitFor(seen + 1, 30_000);
    const url = `http://127.0.0.1:${port}`;
    let text = '';
    // The earlier tests' deliveries still due are this process's too: it counts at least this one.
    await until(async () => {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
      expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      text = await res.text();
      return Number(/^tpl_webhook_deliveries_total\{outcome="delivered"\} (\d+)$/m.exec(text)?.[1] ?? 0) >= 1;
    }, 10_000, 'the delivery to be counted', 50);
    expect(text).to.match(/^tpl_webhook_deliveries_backlog\{status="pending"\} \d+$/m);
    expect(text).to.match(/^tpl_database_up 1$/m);
    expect(text).to.match(/^tpl_process_cpu_seconds_total /m);
    const other = await fetch(`${url}/api/articles`);
    expect([other.status, await other.json(), other.headers.has('x-request-id')]).to.deep.equal([404, { message: 'Not found: this process serves GET /metrics only.' }, true]);
    expect(worker.output.join('')).to.include(`webhook worker metrics on 127.0.0.1:${port}/metrics`);

    const second = startWorker({ WORKER_METRICS_PORT: String(port), HOST: '127.0.0.1' });
    expect(await second.exited).to.deep.equal({ code: 1, signal: null });
    const lines = second.output.join('').trim().split('\n');
    expect(lines, 'one line').to.have.length(1);
    expect(JSON.parse(lines[0]!)).to.include({ msg: 'The process could not start.' });
    expect(lines[0]).to.include('EADDRINUSE');

    worker.child.kill('SIGTERM');
    expect(await worker.exited).to.deep.equal({ code: 0, signal: null });
  });
});
