/**
 * The two limits of the login (x-rate-limit auth): per client address whatever the email, then per
 * client address and email. Each writes its own RateLimit-* headers, so a 429 describes the limit
 * that refused it. A login they let through shows the tighter budget of the two (the one with fewer
 * logins left; the email's when they are equal), so a client that paces itself by the headers is
 * not refused by a limit it was never shown.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { RateLimitInfo } from 'express-rate-limit';

/** Where the per-address limiter leaves its state on the request (the per-email one: req.rateLimit). */
export const ADDRESS_INFO = 'loginAddressRateLimit';

type Counted = Request & { rateLimit?: RateLimitInfo; [ADDRESS_INFO]?: RateLimitInfo };

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

export function loginLimits(options: { perAddress: RequestHandler; perEmail: RequestHandler; windowMs: number }): RequestHandler {
  const { perAddress, perEmail, windowMs } = options;
  return (req, res, next) =>
    perAddress(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      perEmail(req, res, (refused?: unknown) => {
        const { rateLimit: email, [ADDRESS_INFO]: address } = req as Counted;
        // The per-email limiter wrote its headers last; the address's replace them when tighter.
        if (refused === undefined && address && email && address.remaining < email.remaining) writeHeaders(res, address, windowMs);
        next(refused);
      });
    });
}
