/**
 * Keeping the auth caches of every instance in step: with REDIS_URL set, each instance subscribes
 * to `<REDIS_PREFIX>:auth-changes` and forgets what each published AuthChange makes stale; a
 * revocation through the API, and a change through the operator CLI, publish one. While the
 * subscription is not live (Redis down, the connection lost) the cache trusts its entries for at
 * most UNFOLLOWED_TRUST_MS, and forgets everything once it is live again (changes may have been
 * missed); node-redis subscribes again by itself after each reconnect. A change Redis did not take
 * is published again until it does (createRepublisher).
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

/** How often a change Redis did not take is sent again. */
export const REPUBLISH_EVERY_MS = 200;

export interface Republisher {
  /** Publishes `change`; when Redis does not take it, keeps sending it again. */
  publish(change: AuthChange): Promise<void>;
  /** How many changes wait to be sent again. */
  readonly waiting: () => number;
  close(): void;
}

/**
 * Changes Redis did not take (it was down, or hung past the command timeout) are sent again every
 * REPUBLISH_EVERY_MS (those made while others wait queue behind them; one sent while an earlier
 * one is still in flight may arrive first, which forgetting, idempotent and order-free, allows)
 * until it takes them or `keepMs` (the cache's TTL) has passed, after
 * which no instance still holds an entry they would make stale. Without this an instance whose
 * subscription outlived a short stall (it is live while it hears its own echo within 3 s) kept a
 * revoked token for the whole TTL. A change sent twice is harmless: forgetting is idempotent.
 */
export function createRepublisher(send: (change: AuthChange) => Promise<unknown>, keepMs: number, logger: Logger, now: () => number = Date.now): Republisher {
  const waiting: Array<{ change: AuthChange; until: number }> = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing = false;
  const schedule = (): void => {
    if (timer || waiting.length === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, REPUBLISH_EVERY_MS);
    timer.unref();
  };
  const flush = async (): Promise<void> => {
    if (flushing) return;
    flushing = true;
    let sent = 0;
    try {
      while (waiting.length > 0) {
        const first = waiting[0]!;
        if (now() < first.until) {
          await send(first.change);
          sent += 1;
        }
        waiting.shift();
      }
      if (sent > 0) logger.info({ sent }, 'auth changes published to the other instances after Redis took them');
    } catch {
      // Still not taken: the next round tries again.
    } finally {
      flushing = false;
      schedule();
    }
  };
  return {
    publish: async (change) => {
      // Behind changes still waiting, so that the others hear them in order.
      if (waiting.length === 0) {
        try {
          await send(change);
          return;
        } catch (error) {
          logger.warn({ err: error, change }, 'auth change not published to the other instances; sending it again until Redis takes it');
        }
      }
      waiting.push({ change, until: now() + keepMs });
      schedule();
    },
    waiting: () => waiting.length,
    close: () => {
      clearTimeout(timer);
      timer = undefined;
      waiting.length = 0;
    },
  };
}

/** The auth cache of a server instance: shared through Redis when it is configured, its own otherwise. */
export function createInstanceAuthCache(config: Config, redis: RedisConnection | undefined, logger: Logger): InstanceAuthCache {
  const base = { ttlSeconds: config.authCacheTtlSeconds, verify: verifyBearerToken, resolve: resolveAccess };
  if (!redis || !config.redisUrl || config.authCacheTtlSeconds === 0) {
    return { cache: createAuthCache(base), following: () => true, close: async () => undefined };
  }
  const channel = authChangesChannel(config.redisPrefix);
  // The change is committed: a Redis that does not take it gets it again until it does (or the TTL
  // has passed); meanwhile the others trust their entries as their subscription allows.
  const republisher = createRepublisher((change) => publish(redis, channel, change), config.authCacheTtlSeconds * 1000, logger);
  const cache = createAuthCache({ ...base, publish: republisher.publish });
  cache.setFollowing(false);
  const subscription = subscribeRedis(config.redisUrl, channel, redis, logger, {
    onMessage: (message) => cache.forget(decodeAuthChange(message)),
    onLive: () => cache.setFollowing(true),
    onLost: () => cache.setFollowing(false),
  });
  return {
    cache,
    following: () => subscription.live,
    close: () => {
      republisher.close();
      return subscription.close();
    },
  };
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
