/**
 * A TCP proxy on 127.0.0.1 in front of host:port, for fault tests: the link between the app and
 * a server (MariaDB, Redis) that a test can cut and restore.
 *
 * - `cut('reset')` destroys every connection and stops listening, so new ones are refused
 *   (ECONNREFUSED), as when the server or its host is gone.
 * - `cut('blackhole')` keeps every connection open but forwards nothing, and accepts new ones that
 *   then hear nothing, as when the network drops packets: only a timeout notices.
 * - `cutWhen(match)` cuts (reset) as soon as the client sends a chunk that matches, without
 *   forwarding that chunk: a cut at an exact point of a conversation (say at COMMIT).
 * - `restore()` forwards again (a fresh listener on the same port after a reset); on a link that
 *   is up it changes nothing, so it can run after every test.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export type CutMode = 'reset' | 'blackhole';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted since the start (a reconnecting client opens new ones). */
  readonly accepted: number;
  /** Client connections open now. */
  open(): number;
  cut(mode?: CutMode): void;
  cutWhen(match: (chunk: Buffer) => boolean): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const held = new Set<Socket>();
  let state: 'up' | CutMode = 'up';
  let trigger: ((chunk: Buffer) => boolean) | undefined;
  let accepted = 0;
  let server: Server;
  let port = 0;

  const destroyAll = (): void => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    for (const socket of held) socket.destroy();
    held.clear();
  };

  const onConnection = (client: Socket): void => {
    accepted++;
    client.on('error', () => undefined);
    if (state !== 'up') {
      // black hole: accepted, never answered
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    upstream.on('error', () => client.destroy());
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (state !== 'up') return;
      if (trigger?.(chunk)) {
        trigger = undefined;
        cut('reset');
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (state === 'up') client.write(chunk);
    });
  };

  const listen = (onPort: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server = createServer(onConnection);
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });

  const stopListening = (): Promise<void> => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

  function cut(mode: CutMode = 'reset'): void {
    state = mode;
    if (mode === 'reset') {
      void stopListening();
      destroyAll();
    }
  }

  await listen(0);
  return {
    get port() {
      return port;
    },
    get accepted() {
      return accepted;
    },
    open: () => pairs.size + held.size,
    cut,
    cutWhen: (match) => {
      trigger = match;
    },
    restore: async () => {
      const previous = state;
      state = 'up';
      trigger = undefined;
      if (previous === 'up') return;
      // The connections of a black hole lost bytes: they cannot carry on, so they end now.
      destroyAll();
      if (previous === 'reset' || !server.listening) {
        await stopListening();
        await listen(port);
      }
    },
    close: async () => {
      state = 'reset';
      destroyAll();
      await stopListening();
    },
  };
}
