/**
 * The ceiling on failed authentications per client address. Every answer 401 to a request that
 * carried a credential counts against its address; once an address has `perMinute` of them in the
 * current window (a minute from its first failure), a request from it that carries a credential
 * answers 429 with Retry-After (and the ceiling's RateLimit-* headers) before the credential is
 * looked at (no database, no hash compare; with Redis, one read of whether another instance saw the
 * credential work, the address's block being remembered here until its window ends), so invented
 * tokens and guesses of the shared integration secrets get no further than the ceiling. Refused
 * requests do not count, so the block ends with the window in which the failures were made.
 *
 * A caller that shares the address (the same office, the same NAT) is not locked out with the
 * flood while its token works: a credential that authenticated within the window, on this instance
 * or (with Redis) on any other, passes the gate and is still verified as usual
 * (working-credentials.ts). A credential no instance has seen work yet waits for the window, at
 * most a minute after the failures stop.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Options, Store } from 'express-rate-limit';
import { LRUCache } from 'lru-cache';
import { TooManyRequestsError } from '../errors.js';
import { clientAddress, credentialDigest } from './rate-limit-keys.js';
import type { WorkingCredentials } from './working-credentials.js';

/** Addresses over the ceiling remembered at once: a bound on this instance's memory. */
const BLOCKED_ADDRESSES = 10_000;

/** Whether the operation looks at the credential sent (else it cannot fail authentication). */
function verifiesCredentials(req: Request): boolean {
  return req.operation?.security.some((alternative) => alternative.length > 0) ?? false;
}

export function failedAuthLimit(options: { perMinute: number; windowMs: number; store: Store; working: WorkingCredentials }): RequestHandler {
  const { perMinute, windowMs, store, working } = options;
  void store.init?.({ windowMs } as Options);
  /** Counts the request's failure, or remembers its credential as working, once it is answered. */
  const watch = (req: Request, res: Response, credential: string, address: string): void => {
    res.once('finish', () => {
      if (res.statusCode === 401) {
        working.refused(credential);
        void Promise.resolve(store.increment(address)).catch(() => undefined);
      } else if (req.auth) {
        working.worked(credential);
      }
    });
  };
  /**
   * The addresses over the ceiling, with the end of their window: refused requests do not count, so
   * an address stays over it until then, and its flood is refused without asking the store again.
   */
  const blocked = new LRUCache<string, number>({ max: BLOCKED_ADDRESSES });
  /** The seconds until the address may try again, or undefined when it is under the ceiling. */
  const refusedFor = async (address: string): Promise<number | undefined> => {
    const until = blocked.get(address);
    if (until !== undefined && until > Date.now()) return Math.ceil((until - Date.now()) / 1000);
    const failures = await store.get?.(address);
    const resetMs = failures?.resetTime ? failures.resetTime.getTime() - Date.now() : 0;
    if (!failures || failures.totalHits < perMinute || resetMs <= 0) return undefined;
    blocked.set(address, Date.now() + resetMs);
    return Math.ceil(resetMs / 1000);
  };
  return async (req, res, next) => {
    const credential = credentialDigest(req);
    if (credential === undefined || !verifiesCredentials(req)) return next();
    const address = clientAddress(req);
    let wait: number | undefined;
    try {
      wait = working.knownHere(credential) ? undefined : await refusedFor(address);
      // Over the ceiling, a credential that worked on another instance passes as well.
      if (wait !== undefined && (await working.knownAnywhere(credential))) wait = undefined;
    } catch (error) {
      return next(error);
    }
    if (wait !== undefined) {
      // The ceiling's own state, as every limited answer carries its limit's (draft-6 headers).
      res.set({ 'RateLimit-Policy': `${perMinute};w=60`, 'RateLimit-Limit': String(perMinute), 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(wait) });
      return next(new TooManyRequestsError(wait, 'Too many failed authentications from this address'));
    }
    watch(req, res, credential, address);
    next();
  };
}
