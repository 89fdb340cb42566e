/** Logging in, verifying and revoking personal access tokens. */
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { InputError } from '../../platform/errors.js';
import type { ConcurrencyLimit } from '../../platform/concurrency-limit.js';
import type { Principal } from '../../kernel/identity.js';
import * as repository from './auth.repository.js';
import { dummyPasswordHash, verifyPassword } from './passwords.js';
import { generateToken, hashToken, looksLikeToken } from './tokens.js';

const messages = {
  badCredentials: 'These credentials do not match our records.',
};

export interface IssuedToken {
  token: string;
  user: { id: number; name: string; email: string };
}

/**
 * A token for the user whose email and password these are. The password check (scrypt, also
 * against a dummy hash for an unknown email, so both take as long) runs within `checks`, the
 * bound on password checks at once; beyond it the login answers 503 with Retry-After.
 */
export async function issueToken(
  db: Knex,
  input: { email: string; password: string; device_name?: string },
  checks: ConcurrencyLimit,
): Promise<IssuedToken> {
  const user = await repository.findUserByEmail(db, input.email.trim().toLowerCase());
  const matches = await checks.run(async () => verifyPassword(input.password, user?.password_hash ?? (await dummyPasswordHash())));
  // A deactivated user is refused after the same password check, with the same answer: no oracle of the account's state.
  if (!user || !matches || user.deactivated_at !== null) throw new InputError({ email: [messages.badCredentials] }, messages.badCredentials);
  const token = generateToken();
  await repository.insertToken(db, user.id, input.device_name?.trim() || 'api', hashToken(token));
  return { token, user: { id: user.id, name: user.name, email: user.email } };
}

export async function verifyBearerToken(db: Knex, token: string): Promise<Principal | undefined> {
  if (!looksLikeToken(token)) return undefined;
  const hash = hashToken(token);
  const row = await repository.findActiveTokenUser(db, hash);
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  return {
    kind: 'user',
    tokenId: row.token_id,
    user: {
      id: row.id,
      name: row.name,
      email: row.email,
      isSuperAdmin: row.is_super_admin,
      primaryCompanyId: row.primary_company_id,
    },
  };
}

export async function revokeToken(db: Knex, principal: Principal): Promise<void> {
  if (principal.kind === 'user') await repository.revokeToken(db, principal.tokenId);
}
