/**
 * The Redis connection (REDIS_URL), shared by the rate-limit store and the health check. Commands
 * fail at once while it is down (no offline queue) and after COMMAND_TIMEOUT_MS while it hangs, so
 * a dead Redis never stalls a request for long.
 */
import type { Logger } from 'pino';

type RedisLibrary = typeof import('redis');

/**
 * node-redis is loaded with the first connection: an instance without REDIS_URL (the embedded
 * default, one machine) never loads it, and keeps the ~10 MB of heap it takes (~20 MB of RSS).
 */
let library: RedisLibrary | undefined;

async function loadRedis(): Promise<RedisLibrary> {
  return (library ??= await import('redis'));
}

/** The library a connection loaded; a subscription always comes after its publisher's connection. */
function loadedRedis(): RedisLibrary {
  if (!library) throw new Error('connectRedis must open a connection before subscribeRedis');
  return library;
}

export interface RedisConnection {
  sendCommand(args: string[]): Promise<unknown>;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis://…';
  }
}

/**
 * A command unanswered for this long means Redis hangs (say the network drops its packets): the
 * command fails (the rate limit then counts in this process) and the connection is replaced, so that later
 * commands fail at once instead of each waiting behind the lost ones.
 */
export const COMMAND_TIMEOUT_MS = 500;

function newClient({ createClient }: RedisLibrary, url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 5000) },
  });
}

type Client = ReturnType<typeof newClient>;

/**
 * Closes an open client: close() (which lets the commands under way finish) for at most a second,
 * then the socket is destroyed. Against a hung Redis close() never ends, and the client then counts
 * as closed (isOpen false) while its socket stays open and keeps the process alive (an operator
 * command never ended), so the destroy no longer asks isOpen.
 */
async function closeClient(client: Client): Promise<void> {
  if (!client.isOpen) return;
  const said = await within(client.close(), 1000, 'QUIT').then(
    () => true,
    () => false,
  );
  if (!said) client.destroy();
}

class RedisTimeoutError extends Error {}

/** A timer this late fired after the event loop was busy, not after Redis was slow. */
const LATE_MS = 100;

/**
 * `work`, or a RedisTimeoutError once `ms` have passed. A timer that fires late (the event loop was
 * blocked: an instance compiling its validators at start) gives the command `ms` more, once: the
 * answer may be waiting unread, or the command not even written yet (node-redis writes on the
 * next turn of the loop), and a timeout then would replace a healthy connection.
 */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    const arm = (again: boolean): void => {
      const due = performance.now() + ms;
      timer = setTimeout(() => {
        if (again && performance.now() - due > LATE_MS) return arm(false);
        reject(new RedisTimeoutError(`Redis did not answer ${what} within ${ms} ms`));
      }, ms);
    };
    arm(true);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

export async function connectRedis(url: string, logger: Logger): Promise<RedisConnection> {
  const redis = await loadRedis();
  let lastError = '';
  const open = (): { client: Client; connected: Promise<boolean> } => {
    const client = newClient(redis, url);
    client.on('error', (error: Error) => {
      if (error.message !== lastError) logger.warn({ err: error }, 'redis connection error');
      lastError = error.message;
    });
    client.on('ready', () => {
      lastError = '';
    });
    // connect() keeps retrying until Redis answers (and fails once the client is destroyed).
    return { client, connected: client.connect().then(() => true, () => false) };
  };
  let current = open();
  const replace = (hung: Client): void => {
    if (current.client !== hung) return;
    logger.warn({ timeoutMs: COMMAND_TIMEOUT_MS }, 'redis did not answer in time; connecting again');
    current = open();
    hung.destroy();
  };
  // Wait for Redis at most briefly, so that a Redis that is down delays nothing (commands fail at
  // once until it is back).
  const ready = await Promise.race([current.connected, new Promise<false>((resolve) => setTimeout(() => resolve(false), 2000).unref())]);
  if (!ready) logger.warn({ url: redactedUrl(url) }, 'redis is not reachable at start-up; continuing without it until it is');
  return {
    sendCommand(args) {
      const { client } = current;
      const reply = client.sendCommand(args);
      return within(reply, COMMAND_TIMEOUT_MS, args[0] ?? 'a command').catch((error: unknown) => {
        reply.catch(() => undefined);
        if (error instanceof RedisTimeoutError) replace(client);
        throw error;
      });
    },
    async ping(timeoutMs = 1000) {
      const { client } = current;
      if (!client.isReady) return false;
      return within(client.ping(), timeoutMs, 'PING').then((reply) => reply === 'PONG', () => false);
    },
    async close() {
      await closeClient(current.client);
    },
  };
}

/**
 * A subscription to one channel, on a connection of its own (a subscribed connection can do
 * nothing else). It is live while it hears itself: every ECHO_EVERY_MS (and at once after each
 * (re)connect) it publishes a message to itself through `publisher`, and it counts as live from
 * the first echo that comes back until a socket error, or until no echo came back for
 * ECHO_LOST_AFTER_MS (a black-holed network, a subscription lost without the socket noticing), when
 * its connection is also replaced. node-redis reconnects and subscribes again by itself after a
 * socket error. `onLive` and `onLost` tell each change of that state; `onMessage` gets every other
 * message.
 */
export interface RedisSubscription {
  readonly live: boolean;
  close(): Promise<void>;
}

export const ECHO_EVERY_MS = 1000;
export const ECHO_LOST_AFTER_MS = 3000;
const ECHO = '\u0000echo:';

export interface SubscriptionHandlers {
  onMessage(message: string): void;
  onLive(): void;
  onLost(): void;
}

export function subscribeRedis(url: string, channel: string, publisher: RedisConnection, logger: Logger, handlers: SubscriptionHandlers): RedisSubscription {
  const echo = `${ECHO}${process.pid}:${Math.random().toString(36).slice(2)}`;
  let live = false;
  /** When the last echo came back; 0 after a socket error. */
  let heardAt = 0;
  /** Since when the current connection had its chance to hear an echo. */
  let since = Date.now();
  let closed = false;
  let lastError = '';
  const update = (): void => {
    const now = Date.now() - heardAt < ECHO_LOST_AFTER_MS;
    if (now === live || closed) return;
    live = now;
    logger[live ? 'info' : 'warn']({ channel }, live ? 'redis subscription live' : 'redis subscription lost');
    if (live) handlers.onLive();
    else handlers.onLost();
  };
  const sendEcho = (): void => void publisher.sendCommand(['PUBLISH', channel, echo]).catch(() => undefined);
  const listener = (message: string): void => {
    if (message === echo) {
      heardAt = Date.now();
      lastError = '';
    }
    if (message.startsWith(ECHO)) return update();
    handlers.onMessage(message);
  };
  const open = (): Client => {
    since = Date.now();
    // Opened while the instance builds its app, whose compiling blocks the event loop for seconds
    // on a busy machine: a 2 s connect timeout fired on a healthy Redis. Liveness is the echo's
    // business (below), so a longer connect costs nothing.
    const client = loadedRedis().createClient({ url, socket: { connectTimeout: 10_000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 2000) } });
    const lost = (): void => {
      if (client !== current) return;
      heardAt = 0;
      since = Date.now();
      update();
    };
    client.on('error', (error: Error) => {
      if (error.message !== lastError) logger.warn({ err: error, channel }, 'redis subscription connection error');
      lastError = error.message;
      lost();
    });
    client.on('reconnecting', lost);
    client.on('end', lost);
    // After a reconnect node-redis subscribes again before it says ready: the echo tells when it holds.
    client.on('ready', sendEcho);
    client.connect().catch(() => undefined);
    client.subscribe(channel, listener).then(sendEcho, () => undefined);
    return client;
  };
  let current = open();
  const timer = setInterval(() => {
    update();
    if (!live && current.isReady && Date.now() - Math.max(heardAt, since) > ECHO_LOST_AFTER_MS) {
      // Connected as far as the socket knows, yet deaf: start over on a new connection.
      logger.warn({ channel }, 'redis subscription hears nothing; connecting again');
      const deaf = current;
      current = open();
      deaf.destroy();
    }
    sendEcho();
  }, ECHO_EVERY_MS);
  timer.unref();
  return {
    get live() {
      return live;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await closeClient(current);
    },
  };
}
