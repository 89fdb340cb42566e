/**
 * A real HTTP receiver of webhooks on 127.0.0.1: it records every request (headers and the exact
 * body) and answers what the test scripts: queued answers first, then the default answer. An
 * answer may hold the request open ('hang') until the receiver is closed or `releaseHeld()`.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The answer this request got ('hang' while held). */
  answer: Answer;
  /** When it arrived (epoch ms). */
  at: number;
}

export type Answer = 'hang' | { status: number; headers?: Record<string, string>; body?: string };

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** The webhook-id header of each request, in arrival order. */
  ids(): string[];
  /** Answers for the next requests, in turn; after them, the default. */
  script(...answers: Answer[]): void;
  setDefault(answer: Answer): void;
  /** Resolves once `count` requests have arrived in all (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Answers every held request with this answer (default 200). */
  releaseHeld(answer?: Exclude<Answer, 'hang'>): void;
  close(): Promise<void>;
}

export const OK: Answer = { status: 200, body: 'ok' };

function answerWith(res: ServerResponse, answer: Exclude<Answer, 'hang'>): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
  res.end(answer.body ?? '');
}

/**
 * `keep: 'ids'` records only each request's path and webhook-id header (no body, no other header):
 * for load tests, whose tens of thousands of requests would otherwise fill the heap they measure.
 */
export async function startReceiver(defaultAnswer: Answer = OK, options: { keep?: 'all' | 'ids' } = {}): Promise<Receiver> {
  const light = options.keep === 'ids';
  const received: Received[] = [];
  const queued: Answer[] = [];
  const held = new Set<ServerResponse>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let fallback = defaultAnswer;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => void (light || chunks.push(chunk)));
    req.on('end', () => {
      const answer = queued.shift() ?? fallback;
      const headers = light ? { 'webhook-id': req.headers['webhook-id'] } : req.headers;
      const body = light ? '' : Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', path: req.url ?? '', headers, body, answer, at: Date.now() });
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (answer === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      answerWith(res, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    ids: () => received.map((r) => String(r.headers['webhook-id'])),
    script: (...answers) => void queued.push(...answers),
    setDefault: (answer) => {
      fallback = answer;
    },
    waitFor: (count, timeoutMs = 10_000) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`The receiver got ${received.length} requests, not ${count}, within ${timeoutMs} ms`)), timeoutMs);
            waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
          }),
    releaseHeld: (answer = { status: 200 }) => {
      for (const res of [...held]) answerWith(res, answer);
      held.clear();
    },
    close: async () => {
      for (const res of held) res.destroy();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
