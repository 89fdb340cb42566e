/** Users and personal access tokens. */
import type { Knex } from 'knex';
import { insertReturningId } from '../../platform/db/database.js';
import { nowDb } from '../../kernel/time.js';

export interface UserRow {
  id: number;
  name: string;
  email: string;
  password_hash: string;
  is_super_admin: boolean;
  primary_company_id: number | null;
  /** When deactivate-user locked the user out (its login refused, its tokens revoked); null while it may log in. */
  deactivated_at: string | Date | null;
}

interface TokenUserRow extends Omit<UserRow, 'password_hash' | 'deactivated_at'> {
  token_id: number;
  token_hash: string;
}

function toUser<T extends { is_super_admin: unknown; primary_company_id: unknown }>(row: T): T & { is_super_admin: boolean } {
  return {
    ...row,
    is_super_admin: Boolean(row.is_super_admin),
    primary_company_id: row.primary_company_id === null ? null : Number(row.primary_company_id),
  };
}

export async function findUserByEmail(tx: Knex, email: string): Promise<UserRow | undefined> {
  const row = await tx('users')
    .select('id', 'name', 'email', 'password_hash', 'is_super_admin', 'primary_company_id', 'deactivated_at')
    .where('email', email)
    .first();
  return row ? toUser(row as UserRow) : undefined;
}

export async function insertToken(tx: Knex, userId: number, name: string, tokenHash: string): Promise<number> {
  return insertReturningId(tx, 'personal_access_tokens', {
    user_id: userId,
    name,
    token_hash: tokenHash,
    created_at: nowDb(),
  });
}

/**
 * The user of an unrevoked token with this hash, unless the user is deactivated (deactivation
 * revokes its tokens; this also refuses one minted by a login that raced it).
 */
export async function findActiveTokenUser(tx: Knex, tokenHash: string): Promise<TokenUserRow | undefined> {
  const row = await tx('personal_access_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .select('t.id as token_id', 't.token_hash', 'u.id', 'u.name', 'u.email', 'u.is_super_admin', 'u.primary_company_id')
    .where('t.token_hash', tokenHash)
    .whereNull('t.revoked_at')
    .whereNull('u.deactivated_at')
    .first();
  return row ? toUser(row as TokenUserRow) : undefined;
}

export async function revokeToken(tx: Knex, tokenId: number): Promise<void> {
  await tx('personal_access_tokens').where('id', tokenId).whereNull('revoked_at').update({ revoked_at: nowDb() });
}

export function insertUser(
  db: Knex,
  row: { name: string; email: string; password_hash: string; is_super_admin?: boolean; primary_company_id?: number | null },
): Promise<number> {
  const now = nowDb();
  return insertReturningId(db, 'users', { is_super_admin: false, primary_company_id: null, ...row, email: row.email.toLowerCase(), created_at: now, updated_at: now });
}

export async function findUserById(tx: Knex, id: number): Promise<{ id: number; email: string } | undefined> {
  const row = await tx('users').select('id', 'email').where('id', id).first();
  return row ? { id: Number(row.id), email: row.email } : undefined;
}

export interface TokenRow {
  id: number;
  name: string;
  user_id: number;
  email: string;
  revoked_at: string | null;
}

export async function findTokenByHash(tx: Knex, tokenHash: string): Promise<TokenRow | undefined> {
  const row = await tx('personal_access_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .select('t.id', 't.name', 't.user_id', 'u.email', 't.revoked_at')
    .where('t.token_hash', tokenHash)
    .first();
  return row ? { ...row, id: Number(row.id), user_id: Number(row.user_id) } : undefined;
}

/** Revokes every unrevoked token of the user; answers how many. */
export async function revokeTokensOf(tx: Knex, userId: number): Promise<number> {
  return tx('personal_access_tokens').where('user_id', userId).whereNull('revoked_at').update({ revoked_at: nowDb() });
}

/** Sets (a time) or clears (null) the user's deactivated_at, if it is not so already; answers whether it changed. */
export async function setDeactivatedAt(tx: Knex, userId: number, at: string | null): Promise<boolean> {
  const query = tx('users').where('id', userId);
  if (at === null) query.whereNotNull('deactivated_at');
  else query.whereNull('deactivated_at');
  return (await query.update({ deactivated_at: at, updated_at: nowDb() })) === 1;
}

export async function setPrimaryCompany(tx: Knex, userId: number, companyId: number): Promise<void> {
  await tx('users').where('id', userId).update({ primary_company_id: companyId, updated_at: nowDb() });
}
