/**
 * Step 4: the rate limit the operation's x-rate-limit names. `auth`: per client address and email
 * (login); `data`: per bearer token, or per address without one. Counted in memory, or in Redis
 * when a Redis client is given so that instances share the counts. A store that fails lets the
 * request through with a logged warning (fail open) rather than refuse service.
 */
import { hash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator, type Store } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { IncrementResponse } from 'express-rate-limit';
import type { Logger } from 'pino';
import { TooManyRequestsError } from '../errors.js';

export interface RateLimitOptions {
  authPerMinute: number;
  dataPerMinute: number;
  /** Sends one Redis command; without it counts are kept in memory. */
  redisCommand?: (args: string[]) => Promise<RedisReply>;
  /** Key prefix in Redis, so tests and instances of other services do not share counts. */
  redisPrefix?: string;
  logger: Logger;
}

const WINDOW_MS = 60_000;

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

  override async increment(key: string): Promise<IncrementResponse> {
    if (this.scriptsFailed) {
      this.scriptsFailed = false;
      this.incrementScriptSha = this.loadIncrementScript();
      this.getScriptSha = this.loadGetScript();
      this.getScriptSha.catch(() => undefined);
    }
    try {
      return await super.increment(key);
    } catch (error) {
      this.scriptsFailed = true;
      throw error;
    }
  }
}

function clientAddress(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

function bearerKey(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^bearer\s+\S/i.test(header)) return undefined;
  return hash('sha256', header.replace(/^bearer\s+/i, '').trim());
}

function loginEmail(req: Request): string {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : '';
}

export function rateLimits(options: RateLimitOptions): RequestHandler {
  const store = (name: string): Store | undefined =>
    options.redisCommand
      ? new ReloadingRedisStore({
          sendCommand: (...args: string[]) => options.redisCommand!(args),
          prefix: `${options.redisPrefix ?? 'tpl'}:rl:${name}:`,
        })
      : undefined;
  const common = {
    windowMs: WINDOW_MS,
    standardHeaders: 'draft-6' as const,
    legacyHeaders: false,
    passOnStoreError: true,
    handler: (req: Request, _res: unknown, next: (err: unknown) => void) => {
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime?.getTime() ?? Date.now() + WINDOW_MS;
      next(new TooManyRequestsError(Math.max(1, Math.ceil((reset - Date.now()) / 1000))));
    },
    logger: {
      error: (error: unknown, message?: string) => options.logger.warn({ err: error }, `${message} (rate limit not applied)`),
      warn: (error: unknown, message?: string) => options.logger.warn({ err: error }, message),
    },
  };
  const limiters: Record<'auth' | 'data', RequestHandler> = {
    auth: rateLimit({
      ...common,
      limit: options.authPerMinute,
      keyGenerator: (req) => `${clientAddress(req)}|${loginEmail(req)}`,
      store: store('auth'),
    }),
    data: rateLimit({
      ...common,
      limit: options.dataPerMinute,
      keyGenerator: (req) => bearerKey(req) ?? `ip:${clientAddress(req)}`,
      store: store('data'),
    }),
  };
  return (req, res, next) => {
    const kind = req.operation?.rateLimit ?? 'none';
    if (kind === 'none') return next();
    return limiters[kind](req, res, next);
  };
}
