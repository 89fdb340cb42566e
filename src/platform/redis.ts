/**
 * The Redis connection (REDIS_URL), shared by the rate-limit store and the health check. Commands
 * fail at once while it is down (no offline queue), so a dead Redis never stalls a request.
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

export async function connectRedis(url: string, logger: Logger): Promise<RedisConnection> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 5000) },
  });
  let lastError = '';
  client.on('error', (error: Error) => {
    if (error.message !== lastError) logger.warn({ err: error }, 'redis connection error');
    lastError = error.message;
  });
  client.on('ready', () => {
    lastError = '';
  });
  // connect() keeps retrying until Redis answers; wait for it at most briefly, so that a Redis
  // that is down delays nothing (commands fail at once until it is back).
  const connected = client.connect().then(
    () => true,
    () => false,
  );
  const ready = await Promise.race([connected, new Promise<false>((resolve) => setTimeout(() => resolve(false), 2000).unref())]);
  if (!ready) logger.warn({ url: redactedUrl(url) }, 'redis is not reachable at start-up; continuing without it until it is');
  return {
    sendCommand: (args) => client.sendCommand(args),
    async ping(timeoutMs = 1000) {
      if (!client.isReady) return false;
      const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      return Promise.race([client.ping().then((reply) => reply === 'PONG'), timeout]).catch(() => false);
    },
    async close() {
      if (client.isOpen) await client.close().catch(() => client.destroy());
      else client.destroy();
    },
  };
}
