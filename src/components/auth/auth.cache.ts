/**
 * Reuse of verified tokens and resolved company access for AUTH_CACHE_TTL_SECONDS, so a request
 * does not look up its token, memberships, company and modules every time (5 queries). Bounded
 * (least recently used entries go first) and keyed by the token's hash, never the token.
 *
 * A rejected token is remembered as rejected for the TTL too (in a bound of its own, so a flood of
 * invented tokens cannot push out the working ones): a client that goes on sending a revoked or
 * mistyped token, or a flood of one, is refused without a query. A rejection never turns into an
 * acceptance: tokens are 256 random bits minted at login (nobody sends one before it exists, and
 * on Galera every read waits for the writes committed before it), and a revocation is final. A
 * refused company is looked up again every time (a membership may be granted a moment later).
 *
 * What makes an entry stale is an AuthChange (a token revoked, a user's tokens or memberships
 * changed, a company's modules or clients changed). `announce` forgets it here and tells the other
 * instances (auth.invalidation.ts publishes it through Redis); `forget` is what they run.
 * While changes made elsewhere cannot reach this cache (Redis configured but the subscription is
 * not live), an entry is trusted for at most UNFOLLOWED_TRUST_MS; without Redis at all, for the TTL.
 * A lookup that raced a change (it started before the change arrived, or finished within
 * SETTLE_MS of it, when a replica of the database may not have applied it yet) is not kept.
 */
import { LRUCache } from 'lru-cache';
import type { Access, AccessResolver, AuthCache, AuthChange, BearerVerifier, Principal } from '../../kernel/identity.js';
import { hashToken } from './tokens.js';

/** The bound on each of the cache's maps (verified tokens, accesses, rejected tokens). */
export const MAX_ENTRIES = 10_000;
/** The longest an entry is trusted while changes made on other instances cannot reach this one. */
export const UNFOLLOWED_TRUST_MS = 1000;
/** After a change, lookups are not kept for this long (a database replica may still answer the old rows). */
export const SETTLE_MS = 1000;

export interface AuthCacheOptions {
  ttlSeconds: number;
  verify: BearerVerifier;
  resolve: AccessResolver;
  /** Tells the other instances; absent without Redis. */
  publish?: (change: AuthChange) => Promise<void>;
}

interface Entry<T> {
  value: T;
  at: number;
  principal: Principal;
}

function principalKey(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.user.id}:${principal.tokenId}` : `integration:${principal.integration}`;
}

/** Whether a cached entry for `principal` with this access (if any) is made stale by `change`. */
function staleAfter(change: AuthChange, principal: Principal, access?: Access): boolean {
  switch (change.kind) {
    case 'all':
      return true;
    case 'token':
      return principal.kind === 'user' && principal.tokenId === change.tokenId;
    case 'user':
      return principal.kind === 'user' && principal.user.id === change.userId;
    case 'company':
      return access !== undefined && access.scope.kind === 'company' && access.scope.companyId === change.companyId;
  }
}

export function createAuthCache(options: AuthCacheOptions): AuthCache {
  const { ttlSeconds, verify, resolve, publish } = options;
  if (ttlSeconds === 0) {
    return { verifyBearer: verify, resolveAccess: resolve, forget: () => undefined, announce: async (change) => publish?.(change), setFollowing: () => undefined };
  }
  const ttl = ttlSeconds * 1000;
  const principals = new LRUCache<string, Entry<Principal>>({ max: MAX_ENTRIES, ttl });
  const accesses = new LRUCache<string, Entry<Access>>({ max: MAX_ENTRIES, ttl });
  const rejected = new LRUCache<string, true>({ max: MAX_ENTRIES, ttl });
  let following = true;
  let generation = 0;
  let changedAt = -Infinity;

  const trusted = <T>(entry: Entry<T> | undefined): T | undefined =>
    entry && (following || Date.now() - entry.at <= UNFOLLOWED_TRUST_MS) ? entry.value : undefined;
  /** Whether a lookup that started in generation `started` may be kept. */
  const keepable = (started: number): boolean => started === generation && Date.now() - changedAt >= SETTLE_MS;

  const forget = (change: AuthChange): void => {
    generation++;
    changedAt = Date.now();
    if (change.kind === 'all') {
      principals.clear();
      accesses.clear();
      return;
    }
    for (const [key, entry] of principals.entries()) if (staleAfter(change, entry.value)) principals.delete(key);
    for (const [key, entry] of accesses.entries()) if (staleAfter(change, entry.principal, entry.value)) accesses.delete(key);
  };

  return {
    verifyBearer: async (db, token) => {
      const key = hashToken(token);
      const cached = trusted(principals.get(key));
      if (cached) return cached;
      if (rejected.has(key)) return undefined;
      const started = generation;
      const principal = await verify(db, token);
      if (!principal) rejected.set(key, true);
      else if (keepable(started)) principals.set(key, { value: principal, at: Date.now(), principal });
      return principal;
    },
    resolveAccess: async (db, principal, companyId) => {
      const key = `${principalKey(principal)}:${companyId ?? 'default'}`;
      const cached = trusted(accesses.get(key));
      if (cached) return cached;
      const started = generation;
      const access = await resolve(db, principal, companyId);
      if (keepable(started)) accesses.set(key, { value: access, at: Date.now(), principal });
      return access;
    },
    forget,
    announce: async (change) => {
      forget(change);
      await publish?.(change);
    },
    setFollowing: (now) => {
      // Changes may have been missed while not following: nothing cached before is trusted.
      if (now && !following) forget({ kind: 'all' });
      following = now;
    },
  };
}
