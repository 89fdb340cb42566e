/** Personal access tokens: issued for a user (shown once, only the hash is stored) and revoked. */
import { insertToken, revokeToken } from '../../components/auth/auth.repository.js';
import { membershipsOf } from '../../components/auth/access.repository.js';
import { generateToken, hashToken, looksLikeToken, TOKEN_PREFIX } from '../../components/auth/tokens.js';
import { UsageError } from '../args.js';
import { findTokenByHash, revokeTokensOf } from '../../components/auth/auth.repository.js';
import { defineCommand } from '../command.js';
import { requireUser } from '../lookups.js';

export const issueToken = defineCommand({
  name: 'issue-token',
  summary: 'Issue a personal access token for a user (for an ERP or another integration); it is shown once.',
  options: {
    user: { kind: 'email', required: true, help: 'the user email' },
    name: { kind: 'text', max: 255, help: 'what the token is for, e.g. erp (default cli)' },
  },
  async run(db, o, out) {
    const user = await requireUser(db, o.user);
    if (user.deactivated_at !== null) throw new UsageError(`--user ${user.email}: the user is deactivated, so the API would refuse the token; activate-user --user ${user.email} first.`);
    const token = generateToken();
    const name = o.name ?? 'cli';
    const id = await insertToken(db, user.id, name, hashToken(token));
    out(`Issued token ${id} '${name}' for user ${user.id} ${user.email}. Store it now; it is not shown again:`);
    out(token);
    if (!user.is_super_admin && (await membershipsOf(db, user.id)).length === 0) {
      out(`Note: ${user.email} is a member of no company yet, so the API refuses the token (403) until add-member.`);
    }
  },
});

export const revokeTokenCommand = defineCommand({
  name: 'revoke-token',
  summary: 'Revoke one token (--token), or every token of a user (--user <email> --all); the API then answers 401.',
  options: {
    token: { kind: 'text', max: 255, help: `the token itself (${TOKEN_PREFIX}…)` },
    user: { kind: 'email', help: 'the user whose tokens to revoke, with --all' },
    all: { kind: 'flag', help: 'with --user: every token of the user' },
  },
  check(o) {
    if (o.token !== undefined && (o.user !== undefined || o.all)) throw new UsageError('revoke-token takes either --token <token> or --user <email> --all, not both.');
    if (o.all && o.user === undefined) throw new UsageError('revoke-token --all needs --user <email>.');
    if (o.token === undefined && o.user === undefined) throw new UsageError('revoke-token needs --token <token>, or --user <email> --all.');
    if (o.user !== undefined && !o.all) throw new UsageError('revoke-token --user needs --all (to revoke one token, pass --token <token>).');
    if (o.token !== undefined && !looksLikeToken(o.token)) {
      throw new UsageError(`--token: this is not a personal access token: they are ${TOKEN_PREFIX} and 43 more characters (this one has ${o.token.startsWith(TOKEN_PREFIX) ? `${o.token.length - TOKEN_PREFIX.length} after the prefix: cut short or mistyped?` : 'another start'}).`);
    }
  },
  async run(db, o, out, changed) {
    if (o.user !== undefined) {
      const user = await requireUser(db, o.user);
      const count = await revokeTokensOf(db, user.id);
      if (count > 0) changed({ kind: 'user', userId: user.id });
      out(`Revoked ${count} token${count === 1 ? '' : 's'} of user ${user.id} ${user.email}.`);
      return;
    }
    const row = await findTokenByHash(db, hashToken(o.token!));
    if (!row) throw new UsageError('--token: no such token (it was never issued here, or it was mistyped).');
    if (row.revoked_at !== null) {
      out(`Token ${row.id} '${row.name}' of ${row.email} was already revoked; nothing changed.`);
      return;
    }
    await revokeToken(db, row.id);
    changed({ kind: 'token', tokenId: row.id });
    out(`Revoked token ${row.id} '${row.name}' of user ${row.user_id} ${row.email}.`);
  },
});

export const tokenCommands = [issueToken, revokeTokenCommand];
