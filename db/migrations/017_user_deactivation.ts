/**
 * A user can be locked out: `users.deactivated_at`, set by the CLI's deactivate-user (with every
 * token of the user revoked in the same transaction) and cleared by activate-user. A deactivated
 * user's login answers as a wrong password does, and its tokens are refused even if one was minted
 * by a login that raced the deactivation.
 *
 * Rolling it back keeps the lock: the schema before it has no such column, so a deactivated user's
 * password hash is kept behind a `deactivated$` prefix, which no password verifies against (the
 * scheme is not scrypt); migrating up again takes the prefix off and sets deactivated_at (to the
 * time of the migration). A full rollback drops the users anyway.
 */
import type { Knex } from 'knex';

const LOCKED = 'deactivated$';

const now = (): string => new Date().toISOString().replace('T', ' ').replace('Z', '000');

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.datetime('deactivated_at', { precision: 6 }).nullable();
  });
  const locked = (await knex('users').select('id', 'password_hash').where('password_hash', 'like', `${LOCKED}%`)) as Array<{ id: number; password_hash: string }>;
  for (const user of locked) {
    await knex('users').where('id', user.id).update({ password_hash: user.password_hash.slice(LOCKED.length), deactivated_at: now() });
  }
}

export async function down(knex: Knex): Promise<void> {
  const locked = (await knex('users').select('id', 'password_hash').whereNotNull('deactivated_at')) as Array<{ id: number; password_hash: string }>;
  for (const user of locked) await knex('users').where('id', user.id).update({ password_hash: LOCKED + user.password_hash });
  // ALTER TABLE … DROP COLUMN on both engines: Knex's SQLite dropColumn copies the table and drops
  // the old one, which the foreign keys of memberships and tokens forbid.
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['users', 'deactivated_at']);
}
