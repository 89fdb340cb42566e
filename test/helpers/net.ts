/** Network helpers for fault tests. */
import { connect, createServer, type AddressInfo } from 'node:net';

/** Polls `condition` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. Answers the ms it took. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 100): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Date.now() - started;
}

/** A local port nothing listens on, so a connection to it is refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether a Redis answers PING at url (raw RESP, so a dead Redis cannot stall the probe). */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
