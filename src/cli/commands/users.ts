/** Users and their memberships: who may act for which company, with which role. */
import { randomBytes } from 'node:crypto';
import { findUserByEmail } from '../../components/auth/auth.repository.js';
import { hashPassword } from '../../components/auth/passwords.js';
import { ROLES } from '../../kernel/access.js';
import { UsageError } from '../args.js';
import { addMembership, roleOf, updateRole } from '../../components/auth/access.repository.js';
import { insertUser } from '../../components/auth/auth.repository.js';
import { defineCommand } from '../command.js';
import { requireCompany, requireUser, unlessTaken } from '../lookups.js';

/** 24 characters of base64url randomness (144 bits). */
function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export const createUser = defineCommand({
  name: 'create-user',
  summary: 'Create a user who logs in with email and password (a password is generated and shown once when not given).',
  options: {
    email: { kind: 'email', required: true, help: 'login email (unique)' },
    name: { kind: 'text', max: 255, required: true, help: 'full name' },
    password: { kind: 'text', min: 8, max: 200, help: 'password, at least 8 characters; generated when omitted' },
    superAdmin: { kind: 'flag', help: 'may act for every company' },
    primary: { kind: 'id', help: 'the company the user acts for when a request names none' },
    role: { kind: 'choice', values: ROLES, help: 'with --primary: the role in that company, of which the user is made a member' },
  },
  async run(db, o, out) {
    const taken = `--email ${o.email}: there is already a user with this email.`;
    if (o.role !== undefined && o.primary === undefined) throw new UsageError('--role goes with --primary <id>: the company the user is made a member of.');
    // A user acts only for its companies: a primary company it is not a member of refused every request naming none (403).
    if (o.primary !== undefined && o.role === undefined && !o.superAdmin) {
      throw new UsageError(`--primary ${o.primary} needs --role viewer|operator|admin (the user's role in that company), or --super-admin.`);
    }
    if (await findUserByEmail(db, o.email)) throw new UsageError(taken);
    const company = o.primary === undefined ? undefined : await requireCompany(db, o.primary, '--primary');
    const password = o.password ?? generatePassword();
    const passwordHash = await hashPassword(password);
    const id = await unlessTaken(
      () =>
        db.transaction(async (tx) => {
          const user = await insertUser(tx, { name: o.name, email: o.email, password_hash: passwordHash, is_super_admin: o.superAdmin, primary_company_id: o.primary ?? null });
          if (company && o.role) await addMembership(tx, user, company.id, o.role);
          return user;
        }),
      taken,
    );
    const member = company && o.role ? ` as ${o.role} of company ${company.id} '${company.name}'` : '';
    out(`Created user ${id} ${o.email} '${o.name}'${o.superAdmin ? ' as super-admin (every company)' : ''}${member}${o.primary ? ` with primary company ${o.primary}` : ''}.`);
    if (o.password === undefined) out(`Generated password (shown only now): ${password}`);
    if (!o.superAdmin && !o.role) out(`Next: add-member --user ${o.email} --company <id> --role viewer|operator|admin`);
  },
});

export const addMember = defineCommand({
  name: 'add-member',
  summary: 'Make a user a member of a company with a role (a provider member also acts for its clients); changes the role of a member.',
  options: {
    user: { kind: 'email', required: true, help: 'the user email' },
    company: { kind: 'id', required: true, help: 'the company id' },
    role: { kind: 'choice', values: ROLES, required: true, help: 'viewer reads; operator also writes; admin also manages webhooks' },
  },
  async run(db, o, out, changed) {
    const user = await requireUser(db, o.user);
    const company = await requireCompany(db, o.company, '--company');
    const where = `company ${company.id} '${company.name}'`;
    const current = await roleOf(db, user.id, company.id);
    if (current === o.role) {
      out(`User ${user.id} ${user.email} is already ${o.role} of ${where}; nothing changed.`);
      return;
    }
    if (current) {
      await updateRole(db, user.id, company.id, o.role);
      changed({ kind: 'user', userId: user.id });
      out(`Changed the role of user ${user.id} ${user.email} in ${where} from ${current} to ${o.role}.`);
      return;
    }
    await unlessTaken(() => addMembership(db, user.id, company.id, o.role), `User ${user.email} was just made a member of ${where}; run again to change the role.`);
    changed({ kind: 'user', userId: user.id });
    const reach = company.type === 'provider' ? ' (and so of its clients)' : '';
    out(`Added user ${user.id} ${user.email} to ${where} as ${o.role}${reach}.`);
  },
});

export const userCommands = [createUser, addMember];
