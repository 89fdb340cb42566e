/**
 * Locking a user out, letting it back in, and taking a membership away (the operator CLI's; the
 * API has no user management). Each is one transaction; the caller then tells the running
 * instances to forget what they cached of the user (an AuthChange of kind `user`).
 */
import type { Knex } from 'knex';
import { nowDb } from '../../kernel/time.js';
import { findCompany, type CompanyRow } from '../companies/companies.service.js';
import * as access from './access.repository.js';
import { roleFor } from './access.service.js';
import * as users from './auth.repository.js';

export interface AccountChange {
  /** Whether the user's state changed (false: it was so already). */
  changed: boolean;
  /** How many tokens were revoked with it. */
  revoked: number;
}

/** Refuses the user's logins from now on and revokes every token it has, together. */
export async function deactivateUser(db: Knex, userId: number): Promise<AccountChange> {
  return db.transaction(async (tx) => {
    const changed = await users.setDeactivatedAt(tx, userId, nowDb());
    return { changed, revoked: await users.revokeTokensOf(tx, userId) };
  });
}

/**
 * Lets the user log in again. Its tokens stay revoked; so does one minted by a login that raced
 * the deactivation (refused while the user was deactivated, and a refused token is never accepted
 * later: auth.cache.ts), which is revoked now.
 */
export async function activateUser(db: Knex, userId: number): Promise<AccountChange> {
  return db.transaction(async (tx) => {
    const changed = await users.setDeactivatedAt(tx, userId, null);
    return { changed, revoked: changed ? await users.revokeTokensOf(tx, userId) : 0 };
  });
}

export interface Member {
  id: number;
  isSuperAdmin: boolean;
  primaryCompanyId: number | null;
}

export type Removal =
  | { kind: 'removed'; membershipsLeft: number }
  /** Not a member of it; `via`: the provider whose membership reaches it. */
  | { kind: 'not-member'; via?: number }
  /** The user would no longer act for its primary company (the scope of a request naming none). */
  | { kind: 'primary'; primary: CompanyRow }
  /** The new primary company is not one the user acts for once the membership is gone. */
  | { kind: 'bad-primary' };

/**
 * Removes the user's membership of `company` (and so, of a provider, its reach to the clients), and
 * makes `newPrimary` its primary company, together. Refused when the user would no longer act for
 * its primary company and no new one is named: every request naming no company would answer 403.
 */
export async function removeMember(db: Knex, user: Member, company: CompanyRow, newPrimary?: CompanyRow): Promise<Removal> {
  return db.transaction(async (tx) => {
    const memberships = await access.membershipsOf(tx, user.id);
    if (!memberships.some((m) => Number(m.company_id) === company.id)) {
      const throughProvider = company.type === 'client' && memberships.some((m) => Number(m.company_id) === company.provider_id);
      return { kind: 'not-member', ...(throughProvider ? { via: company.provider_id! } : {}) };
    }
    const left = memberships.filter((m) => Number(m.company_id) !== company.id);
    const actsFor = (c: CompanyRow, ms: typeof memberships) => user.isSuperAdmin || roleFor(ms, c) !== undefined;
    if (newPrimary) {
      if (!actsFor(newPrimary, left)) return { kind: 'bad-primary' };
    } else if (user.primaryCompanyId !== null) {
      const primary = user.primaryCompanyId === company.id ? company : await findCompany(tx, user.primaryCompanyId);
      if (primary && actsFor(primary, memberships) && !actsFor(primary, left)) return { kind: 'primary', primary };
    }
    await access.removeMembership(tx, user.id, company.id);
    if (newPrimary) await users.setPrimaryCompany(tx, user.id, newPrimary.id);
    return { kind: 'removed', membershipsLeft: left.length };
  });
}
