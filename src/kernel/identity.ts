/**
 * Who calls and what they may do: the identity types every layer shares. The platform
 * authenticates (a BearerVerifier) and resolves access (an AccessResolver); the auth component
 * implements both and keeps an AuthCache of them; handlers and services read the Principal.
 */
import type { Knex } from 'knex';
import type { Role } from './access.js';
import type { CompanyScope } from './company-scope.js';

export type Principal =
  | { readonly kind: 'user'; readonly user: AuthUser; readonly tokenId: number }
  | { readonly kind: 'integration'; readonly integration: 'etsm' | 'mdm' };

export interface AuthUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly isSuperAdmin: boolean;
  readonly primaryCompanyId: number | null;
}

/** What a principal may do for the company in scope. */
export interface Access {
  readonly scope: CompanyScope;
  readonly role: Role;
  /** The active modules of the company in scope (every module for the all-companies scope). */
  readonly activeModules: ReadonlySet<string>;
}

/** The principal of a bearer token, or undefined when the token is unknown, expired or revoked. */
export type BearerVerifier = (db: Knex, token: string) => Promise<Principal | undefined>;

/** Resolves what the principal may do for `companyId` (or its default scope); throws ForbiddenError. */
export type AccessResolver = (db: Knex, principal: Principal, companyId: number | undefined) => Promise<Access>;

/**
 * What makes cached authentication stale, as instances tell each other: a token revoked, a user
 * whose tokens, memberships or roles changed, a company whose modules or clients changed, or
 * anything (`all`).
 */
export type AuthChange =
  | { readonly kind: 'token'; readonly tokenId: number }
  | { readonly kind: 'user'; readonly userId: number }
  | { readonly kind: 'company'; readonly companyId: number }
  | { readonly kind: 'all' };

/** Verified tokens and resolved access, reused for a while (components/auth/auth.cache.ts). */
export interface AuthCache {
  readonly verifyBearer: BearerVerifier;
  readonly resolveAccess: AccessResolver;
  /** Forgets, in this process, what `change` makes stale. */
  forget(change: AuthChange): void;
  /** Forgets it here and tells every other instance (when they are connected through Redis). */
  announce(change: AuthChange): Promise<void>;
  /** Whether changes made on other instances reach this cache now (see auth.invalidation.ts). */
  setFollowing(following: boolean): void;
}
