/**
 * When an employee leaves or moves: deactivate-user locks the user out (its login refused as a
 * wrong password is, every token revoked), activate-user lets it log in again, remove-member takes
 * a membership away. Each tells the running instances to forget what they cached of the user.
 */
import { activateUser, deactivateUser, removeMember } from '../../components/auth/accounts.service.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { requireCompany, requireUser } from '../lookups.js';

const tokens = (n: number): string => `${n} token${n === 1 ? '' : 's'}`;

export const deactivateUserCommand = defineCommand({
  name: 'deactivate-user',
  summary: 'Lock a user out (an employee who leaves): its login is refused as a wrong password is, and every token it has is revoked.',
  options: { user: { kind: 'email', required: true, help: 'the user email' } },
  async run(db, o, out, changed) {
    const user = await requireUser(db, o.user);
    const { changed: deactivated, revoked } = await deactivateUser(db, user.id);
    if (deactivated || revoked > 0) changed({ kind: 'user', userId: user.id });
    if (!deactivated) {
      out(`User ${user.id} ${user.email} was already deactivated; ${revoked > 0 ? `revoked ${tokens(revoked)} it still had` : 'nothing changed'}.`);
      return;
    }
    out(`Deactivated user ${user.id} ${user.email}: its login is refused and its ${tokens(revoked)} revoked (activate-user undoes the first).`);
  },
});

export const activateUserCommand = defineCommand({
  name: 'activate-user',
  summary: 'Let a deactivated user log in again (POST /api/auth/token); its old tokens stay revoked.',
  options: { user: { kind: 'email', required: true, help: 'the user email' } },
  async run(db, o, out, changed) {
    const user = await requireUser(db, o.user);
    const { changed: activated } = await activateUser(db, user.id);
    if (!activated) {
      out(`User ${user.id} ${user.email} is not deactivated; nothing changed.`);
      return;
    }
    changed({ kind: 'user', userId: user.id });
    out(`Activated user ${user.id} ${user.email}: it may log in again; its old tokens stay revoked.`);
  },
});

export const removeMemberCommand = defineCommand({
  name: 'remove-member',
  summary: 'Take a company away from a user (an employee who moves); its tokens no longer reach that company (nor, for a provider, its clients).',
  options: {
    user: { kind: 'email', required: true, help: 'the user email' },
    company: { kind: 'id', required: true, help: 'the company id' },
    primary: { kind: 'id', help: "the user's new primary company, when the removed one was it (one it stays a member of)" },
  },
  async run(db, o, out, changed) {
    const user = await requireUser(db, o.user);
    const company = await requireCompany(db, o.company, '--company');
    const newPrimary = o.primary === undefined ? undefined : await requireCompany(db, o.primary, '--primary');
    const where = `company ${company.id} '${company.name}'`;
    const member = { id: user.id, isSuperAdmin: user.is_super_admin, primaryCompanyId: user.primary_company_id };
    const result = await removeMember(db, member, company, newPrimary);
    switch (result.kind) {
      case 'not-member': {
        const via = result.via === undefined ? '' : ` (it acts for it as a member of its provider: remove-member --company ${result.via})`;
        throw new UsageError(`--user ${user.email} is not a member of ${where}${via}; nothing to remove.`);
      }
      case 'primary':
        throw new UsageError(
          `--company ${company.id}: user ${user.email} would no longer act for its primary company ${result.primary.id} '${result.primary.name}' (the one of a request naming none): ` +
            `pass --primary <id> of a company it stays a member of, or deactivate-user --user ${user.email} if the user leaves.`,
        );
      case 'bad-primary':
        throw new UsageError(`--primary ${newPrimary!.id}: user ${user.email} is not a member of company ${newPrimary!.id} '${newPrimary!.name}' once removed from ${where}; add-member first.`);
      case 'removed': {
        changed({ kind: 'user', userId: user.id });
        const reach = company.type === 'provider' ? ' (and so from its clients it is not a member of itself)' : '';
        const primary = newPrimary ? `; its primary company is now ${newPrimary.id} '${newPrimary.name}'` : '';
        out(`Removed user ${user.id} ${user.email} from ${where}${reach}${primary}.`);
        if (result.membershipsLeft === 0 && !user.is_super_admin) {
          out(`Note: ${user.email} is now a member of no company, so the API refuses its tokens (403); if the user left, deactivate-user --user ${user.email}.`);
        }
      }
    }
  },
});

export const accountCommands = [deactivateUserCommand, activateUserCommand, removeMemberCommand];
