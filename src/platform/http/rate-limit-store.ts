/**
 * Where the rate limits count: in this process, or in Redis when a Redis client is given so that
 * instances share the counts. While Redis does not answer, counting goes on in this process (each
 * instance on its own, with one warning when it starts and one line when Redis is back), from the
 * counts this process made meanwhile: a limit is never lifted because Redis is down. Every count tries Redis first, which costs nothing while
 * its client is offline (its commands fail at once) and at most the command timeout while it hangs
 * (platform/redis.ts), so counting returns to Redis as soon as it answers.
 */
import { MemoryStore, type ClientRateLimitInfo, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Logger } from 'pino';

/**
 * rate-limit-redis's store keeps a failed script load forever (say Redis was down when the app
 * started), and every count then fails. This one loads the scripts again after a failure, so
 * counting resumes once Redis is back.
 */
class ReloadingRedisStore extends RedisStore {
  private scriptsFailed = false;

  override async init(options: Parameters<RedisStore['init']>[0]): Promise<void> {
    try {
      await super.init(options);
    } catch (error) {
      this.scriptsFailed = true;
      throw error;
    }
  }

  override increment(key: string): Promise<IncrementResponse> {
    return this.reloading(() => super.increment(key));
  }

  override get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.reloading(() => super.get(key));
  }

  private async reloading<T>(command: () => Promise<T>): Promise<T> {
    if (this.scriptsFailed) {
      this.scriptsFailed = false;
      this.incrementScriptSha = this.loadIncrementScript();
      this.getScriptSha = this.loadGetScript();
      this.incrementScriptSha.catch(() => undefined);
      this.getScriptSha.catch(() => undefined);
    }
    try {
      return await command();
    } catch (error) {
      this.scriptsFailed = true;
      throw error;
    }
  }
}

/** Whether Redis answered the last count, shared by every store of the app so it is said once. */
class RedisLink {
  answering = true;

  constructor(private readonly logger: Logger) {}

  failed(error: unknown): void {
    if (!this.answering) return;
    this.answering = false;
    this.logger.warn({ err: error }, 'redis is not answering: rate limits are counted in this process until it is back');
  }

  answered(): void {
    if (this.answering) return;
    this.answering = true;
    this.logger.warn('redis answers again: rate limits are counted in redis');
  }
}

/** Counts in Redis while it answers, else in this process. */
class RedisOrLocalStore implements Store {
  readonly localKeys = false;

  constructor(
    private readonly redis: ReloadingRedisStore,
    private readonly local: MemoryStore,
    private readonly link: RedisLink,
  ) {}

  init(options: Options): void {
    this.local.init(options);
    // A Redis that is down at start is noticed by the first count.
    this.redis.init(options).catch(() => undefined);
  }

  /** In Redis, or here when Redis does not answer. */
  private async counted<T>(inRedis: () => Promise<T>, here: () => Promise<T>): Promise<T> {
    try {
      const value = await inRedis();
      this.link.answered();
      return value;
    } catch (error) {
      this.link.failed(error);
      return here();
    }
  }

  /**
   * In Redis, and here too: should Redis stop answering, this process goes on from the requests it
   * has let through this window, not from zero (a client got a fresh limit each time Redis went).
   */
  increment(key: string): Promise<IncrementResponse> {
    return this.counted(
      async () => {
        const shared = await this.redis.increment(key);
        await this.local.increment(key);
        return shared;
      },
      () => this.local.increment(key),
    );
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.counted(() => this.redis.get(key), () => this.local.get(key));
  }

  /** Gives back a count (a request the limit does not count after all): here, and in Redis where it was most likely made there too. */
  async decrement(key: string): Promise<void> {
    if (this.link.answering) await this.redis.decrement(key).catch(() => undefined);
    await this.local.decrement(key);
  }

  async resetKey(key: string): Promise<void> {
    await Promise.all([this.redis.resetKey(key).catch(() => undefined), this.local.resetKey(key)]);
  }
}

export type RedisCommand = (args: string[]) => Promise<RedisReply>;

/** A store factory for the limiters of one app: `name` keeps their keys apart in Redis. */
export function rateLimitStores(options: { redisCommand?: RedisCommand; redisPrefix?: string; logger: Logger }): (name: string) => Store {
  const { redisCommand } = options;
  if (!redisCommand) return () => new MemoryStore();
  const link = new RedisLink(options.logger);
  return (name) =>
    new RedisOrLocalStore(
      new ReloadingRedisStore({ sendCommand: (...args: string[]) => redisCommand(args), prefix: `${options.redisPrefix ?? 'tpl'}:rl:${name}:` }),
      new MemoryStore(),
      link,
    );
}
