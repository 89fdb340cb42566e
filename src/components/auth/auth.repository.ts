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
}

interface TokenUserRow extends Omit<UserRow, 'password_hash'> {
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
    .select('id', 'name', 'email', 'password_hash', 'is_super_admin', 'primary_company_id')
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

/** The user of an unrevoked token with this hash. */
export async function findActiveTokenUser(tx: Knex, tokenHash: string): Promise<TokenUserRow | undefined> {
  const row = await tx('personal_access_tokens as t')
    .join('users as u', 'u.id', 't.user_id')
    .select('t.id as token_id', 't.token_hash', 'u.id', 'u.name', 'u.email', 'u.is_super_admin', 'u.primary_company_id')
    .where('t.token_hash', tokenHash)
    .whereNull('t.revoked_at')
    .first();
  return row ? toUser(row as TokenUserRow) : undefined;
}

export async function revokeToken(tx: Knex, tokenId: number): Promise<void> {
  await tx('personal_access_tokens').where('id', tokenId).whereNull('revoked_at').update({ revoked_at: nowDb() });
}
