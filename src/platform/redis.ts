/**
 * The Redis connection (REDIS_URL), shared by the rate-limit store and the health check. Commands
 * fail at once while it is down (no offline queue) and after COMMAND_TIMEOUT_MS while it hangs, so
 * a dead Redis never stalls a request for long.
 */
import { createClient } from 'redis';
import type { Logger } from 'pino';

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
 * command fails (the rate limit then fails open) and the connection is replaced, so that later
 * commands fail at once instead of each waiting behind the lost ones.
 */
export const COMMAND_TIMEOUT_MS = 500;

function newClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 5000) },
  });
}

type Client = ReturnType<typeof newClient>;

class RedisTimeoutError extends Error {}

/** `work`, or a RedisTimeoutError once `ms` have passed. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(`Redis did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

export async function connectRedis(url: string, logger: Logger): Promise<RedisConnection> {
  let lastError = '';
  const open = (): { client: Client; connected: Promise<boolean> } => {
    const client = newClient(url);
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
      const { client } = current;
      // A hung Redis would never answer the goodbye.
      if (client.isOpen) await within(client.close(), 1000, 'QUIT').catch(() => undefined);
      if (client.isOpen) client.destroy();
    },
  };
}
