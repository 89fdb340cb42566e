/**
 * Reuse of verified tokens and resolved company access for AUTH_CACHE_TTL_SECONDS, so a request
 * does not look up its token, memberships, company and modules every time (5 queries). Bounded
 * (least recently used entries go first) and keyed by the token's hash, never the token. Only
 * successes are kept: a rejected token or a refused company is looked up again every time.
 * Revoking a token through the API forgets it at once in this process; other processes, and
 * changes made with the operator CLI, take effect within the TTL.
 */
import { LRUCache } from 'lru-cache';
import type { AccessResolver, Access } from '../../platform/http/tenancy.js';
import type { BearerVerifier } from '../../platform/http/authenticate.js';
import type { Principal } from '../../platform/openapi/handler-types.js';
import { hashToken } from './tokens.js';

const MAX_ENTRIES = 10_000;

export interface AuthCache {
  readonly verifyBearer: BearerVerifier;
  readonly resolveAccess: AccessResolver;
  /** Forgets a revoked token and what was resolved for it. */
  forgetToken(tokenId: number): void;
}

function principalKey(principal: Principal): string {
  return principal.kind === 'user' ? `user:${principal.user.id}:${principal.tokenId}` : `integration:${principal.integration}`;
}

export function createAuthCache(ttlSeconds: number, verify: BearerVerifier, resolve: AccessResolver): AuthCache {
  if (ttlSeconds === 0) return { verifyBearer: verify, resolveAccess: resolve, forgetToken: () => undefined };
  const ttl = ttlSeconds * 1000;
  const principals = new LRUCache<string, Principal>({ max: MAX_ENTRIES, ttl });
  const accesses = new LRUCache<string, Access>({ max: MAX_ENTRIES, ttl });
  return {
    verifyBearer: async (db, token) => {
      const key = hashToken(token);
      const cached = principals.get(key);
      if (cached) return cached;
      const principal = await verify(db, token);
      if (principal) principals.set(key, principal);
      return principal;
    },
    resolveAccess: async (db, principal, companyId) => {
      const key = `${principalKey(principal)}:${companyId ?? 'default'}`;
      const cached = accesses.get(key);
      if (cached) return cached;
      const access = await resolve(db, principal, companyId);
      accesses.set(key, access);
      return access;
    },
    forgetToken: (tokenId) => {
      for (const [key, principal] of principals.entries()) {
        if (principal.kind === 'user' && principal.tokenId === tokenId) principals.delete(key);
      }
      for (const key of [...accesses.keys()]) if (key.startsWith('user:') && key.split(':')[2] === String(tokenId)) accesses.delete(key);
    },
  };
}
