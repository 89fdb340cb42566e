/**
 * Keeping the auth caches of every instance in step: with REDIS_URL set, each instance subscribes
 * to `<REDIS_PREFIX>:auth-changes` and forgets what each published AuthChange makes stale; a
 * revocation through the API, and a change through the operator CLI, publish one. While the
 * subscription is not live (Redis down, the connection lost) the cache trusts its entries for at
 * most UNFOLLOWED_TRUST_MS, and forgets everything once it is live again (changes may have been
 * missed); node-redis subscribes again by itself after each reconnect.
 */
import { pino, type Logger } from 'pino';
import type { Config } from '../../config.js';
import { connectRedis, subscribeRedis, type RedisConnection } from '../../platform/redis.js';
import type { AuthCache } from '../../kernel/identity.js';
import { createAuthCache } from './auth.cache.js';
import { decodeAuthChange, encodeAuthChange, type AuthChange } from './auth-change.js';
import { resolveAccess } from './access.service.js';
import { verifyBearerToken } from './auth.service.js';

export function authChangesChannel(redisPrefix: string): string {
  return `${redisPrefix}:auth-changes`;
}

export interface InstanceAuthCache {
  readonly cache: AuthCache;
  /** Whether changes made on other instances reach this one now (always true without Redis). */
  readonly following: () => boolean;
  close(): Promise<void>;
}

/** Publishes one change; answers how many subscribed instances received it. */
async function publish(redis: RedisConnection, channel: string, change: AuthChange): Promise<number> {
  return Number(await redis.sendCommand(['PUBLISH', channel, encodeAuthChange(change)]));
}

/** The auth cache of a server instance: shared through Redis when it is configured, its own otherwise. */
export function createInstanceAuthCache(config: Config, redis: RedisConnection | undefined, logger: Logger): InstanceAuthCache {
  const base = { ttlSeconds: config.authCacheTtlSeconds, verify: verifyBearerToken, resolve: resolveAccess };
  if (!redis || !config.redisUrl || config.authCacheTtlSeconds === 0) {
    return { cache: createAuthCache(base), following: () => true, close: async () => undefined };
  }
  const channel = authChangesChannel(config.redisPrefix);
  const cache = createAuthCache({
    ...base,
    publish: async (change) => {
      // The change is committed: a Redis that does not take it leaves the others on their
      // unfollowed trust (they have lost their subscription too) or, at worst, on the TTL.
      await publish(redis, channel, change).catch((error: unknown) => logger.warn({ err: error, change }, 'auth change not published to the other instances'));
    },
  });
  cache.setFollowing(false);
  const subscription = subscribeRedis(config.redisUrl, channel, redis, logger, {
    onMessage: (message) => cache.forget(decodeAuthChange(message)),
    onLive: () => cache.setFollowing(true),
    onLost: () => cache.setFollowing(false),
  });
  return { cache, following: () => subscription.live, close: () => subscription.close() };
}

/**
 * For the operator CLI: publishes `changes` to the running instances through Redis at `url`;
 * answers how many instances received the first (or throws when Redis cannot be reached).
 */
export async function announceAuthChanges(url: string, redisPrefix: string, changes: readonly AuthChange[]): Promise<number> {
  const redis = await connectRedis(url, pino({ level: 'silent' }));
  try {
    const channel = authChangesChannel(redisPrefix);
    const received = [];
    for (const change of changes) received.push(await publish(redis, channel, change));
    return received[0] ?? 0;
  } finally {
    await redis.close();
  }
}
