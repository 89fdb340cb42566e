/**
 * The two limits of the login (x-rate-limit auth): per client address whatever the email, then per
 * client address and email. Each writes its own RateLimit-* headers, so a 429 describes the limit
 * that refused it. A login they let through shows the tighter budget of the two (the one with fewer
 * logins left; the email's when they are equal), so a client that paces itself by the headers is
 * not refused by a limit it was never shown.
 *
 * A login refused 503 because too many password checks are queued is given back to both limits:
 * it checked no password, and a client that retries after `Retry-After: 1` as told would otherwise
 * turn a second's 503 into a minute's 429. Every other answer counts: wrong passwords, a 503 of a
 * database that failed (it may come after a password matched: a guess must not go uncounted then),
 * and a login whose client hung up before it was answered, so that hanging up does not buy
 * password checks beyond the limits.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { RateLimitInfo, Store } from 'express-rate-limit';
import { REFUSED_UNHEARD } from '../errors.js';

/** Where the per-address limiter leaves its state on the request (the per-email one: req.rateLimit). */
export const ADDRESS_INFO = 'loginAddressRateLimit';

type Counted = Request & { rateLimit?: RateLimitInfo; [ADDRESS_INFO]?: RateLimitInfo };

/** A limiter and the store it counts in, to give a count back. */
export interface CountingLimit {
  limit: RequestHandler;
  store: Store;
}

/** The draft-6 headers of `info`, as express-rate-limit writes them. */
function writeHeaders(res: Response, info: RateLimitInfo, windowMs: number): void {
  const reset = info.resetTime ? Math.max(0, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000);
  res.set({
    'RateLimit-Policy': `${info.limit};w=${Math.ceil(windowMs / 1000)}`,
    'RateLimit-Limit': String(info.limit),
    'RateLimit-Remaining': String(info.remaining),
    'RateLimit-Reset': String(reset),
  });
}

/** Gives the login's counts back once it is refused unheard (within the windows they were made in). */
function giveBackWhenBusy(res: Response, counts: ReadonlyArray<readonly [RateLimitInfo | undefined, Store]>): void {
  res.once('finish', () => {
    if (res.statusCode !== 503 || res.locals[REFUSED_UNHEARD] !== true) return;
    for (const [info, store] of counts) {
      if (info && (!info.resetTime || Date.now() < info.resetTime.getTime())) void Promise.resolve(store.decrement(info.key)).catch(() => undefined);
    }
  });
}

export function loginLimits(options: { perAddress: CountingLimit; perEmail: CountingLimit; windowMs: number }): RequestHandler {
  const { perAddress, perEmail, windowMs } = options;
  return (req, res, next) =>
    perAddress.limit(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      perEmail.limit(req, res, (refused?: unknown) => {
        if (refused !== undefined) return next(refused);
        const { rateLimit: email, [ADDRESS_INFO]: address } = req as Counted;
        // The per-email limiter wrote its headers last; the address's replace them when tighter.
        if (address && email && address.remaining < email.remaining) writeHeaders(res, address, windowMs);
        giveBackWhenBusy(res, [
          [address, perAddress.store],
          [email, perEmail.store],
        ]);
        next();
      });
    });
}
