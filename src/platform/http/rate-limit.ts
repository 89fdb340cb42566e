/**
 * Step 4: the rate limits. First the ceiling on failed authentications per client address
 * (failed-auth-limit.ts), on every operation that looks at a credential. Then the limit the
 * operation's x-rate-limit names:
 * - `auth` (the login): per client address over all emails, and per client address and email
 *   (login-limits.ts);
 * - `data`: per personal access token; a shared integration token (etsm, mdm) per integration and
 *   company (X-Company-Id; without it, per integration); without a token, per client address.
 * Counted in this process, or in Redis when a Redis client is given so that instances share the
 * counts, and in this process again while Redis does not answer (rate-limit-store.ts): never lifted.
 */
import type { Request, RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { TooManyRequestsError } from '../errors.js';
import { failedAuthLimit } from './failed-auth-limit.js';
import { ADDRESS_INFO, loginLimits } from './login-limits.js';
import { rateLimitStores, type RedisCommand } from './rate-limit-store.js';
import { clientAddress, companyAskedFor, credentialDigest, loginEmail, secretDigest } from './rate-limit-keys.js';
import { workingCredentials } from './working-credentials.js';

export interface RateLimitOptions {
  /** Logins per client address and email. */
  authPerMinute: number;
  /** Logins per client address, whatever the email. */
  authPerAddressPerMinute: number;
  /** Data requests per token (or integration and company, or address). */
  dataPerMinute: number;
  /** Failed authentications per client address before its credentials are refused unread. */
  failedAuthPerMinute: number;
  /** The shared integration tokens as configured, counted per integration and company. */
  integrationTokens?: Readonly<Record<string, string | undefined>>;
  /** Sends one Redis command; without it counts are kept in memory. */
  redisCommand?: RedisCommand;
  /** Key prefix in Redis, so tests and instances of other services do not share counts. */
  redisPrefix?: string;
  logger: Logger;
}

const WINDOW_MS = 60_000;

/**
 * The data bucket of a request: its integration and company, its token, or its address. A shared
 * token's company counts only on operations that take X-Company-Id: on the others (the client
 * listing, ping) a header sent anyway would open a fresh bucket per value.
 */
function dataKey(integrations: ReadonlyMap<string, string>): (req: Request) => string {
  return (req) => {
    const credential = credentialDigest(req);
    if (credential === undefined) return `ip:${clientAddress(req)}`;
    const integration = integrations.get(credential);
    if (integration === undefined) return credential;
    return req.operation?.companyHeader === 'absent' ? `${integration}:` : `${integration}:${companyAskedFor(req)}`;
  };
}

export function rateLimits(options: RateLimitOptions): RequestHandler {
  const store = rateLimitStores(options);
  /** A limiter that leaves its state at req[property] and writes its RateLimit-* headers. */
  const limiter = (counts: Store, limit: number, keyGenerator: (req: Request) => string, property = 'rateLimit'): RequestHandler =>
    rateLimit({
      windowMs: WINDOW_MS,
      limit,
      keyGenerator,
      store: counts,
      requestPropertyName: property,
      standardHeaders: 'draft-6',
      legacyHeaders: false,
      // Its check reads the key generator's source for `req.ip` without the word ipKeyGenerator:
      // clientAddress keys through addressKey, which calls it (cached; rate-limit-keys.test.ts), so
      // the check logged a false IPv6-bypass warning, with a stack, at every start. The others stay on.
      validate: { keyGeneratorIpFallback: false },
      handler: (req: Request, _res: unknown, next: (err: unknown) => void) => {
        const info = (req as unknown as Record<string, RateLimitInfo | undefined>)[property];
        const reset = info?.resetTime?.getTime() ?? Date.now() + WINDOW_MS;
        next(new TooManyRequestsError(Math.max(1, Math.ceil((reset - Date.now()) / 1000))));
      },
      logger: {
        error: (error: unknown, message?: string) => options.logger.warn({ err: error }, message),
        warn: (error: unknown, message?: string) => options.logger.warn({ err: error }, message),
      },
    });
  const integrations = new Map(
    Object.entries(options.integrationTokens ?? {}).flatMap(([name, secret]) => (secret ? [[secretDigest(secret), name] as const] : [])),
  );
  const [perAddress, perEmail] = [store('auth-address'), store('auth')];
  const limiters: Record<'auth' | 'data', RequestHandler> = {
    auth: loginLimits({
      perAddress: { limit: limiter(perAddress, options.authPerAddressPerMinute, clientAddress, ADDRESS_INFO), store: perAddress },
      perEmail: { limit: limiter(perEmail, options.authPerMinute, (req) => `${clientAddress(req)}|${loginEmail(req)}`), store: perEmail },
      windowMs: WINDOW_MS,
    }),
    data: limiter(store('data'), options.dataPerMinute, dataKey(integrations)),
  };
  const failures = failedAuthLimit({
    perMinute: options.failedAuthPerMinute,
    windowMs: WINDOW_MS,
    store: store('failed-auth'),
    working: workingCredentials({ windowMs: WINDOW_MS, redisCommand: options.redisCommand, redisPrefix: options.redisPrefix, integrations }),
  });
  return (req, res, next) =>
    failures(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      const kind = req.operation?.rateLimit ?? 'none';
      return kind === 'none' ? next() : limiters[kind](req, res, next);
    });
}
