/**
 * The rows a command names by option (a company, a provider, a client, a user), or a UsageError
 * saying what is wrong with the value and where to find a right one.
 */
import type { Knex } from 'knex';
import { findCompany, type CompanyRow } from '../components/companies/companies.service.js';
import { findUserByEmail, type UserRow } from '../components/auth/auth.repository.js';
import { isUniqueViolation } from '../platform/db/driver-errors.js';
import { UsageError } from './args.js';

const LIST_HINT = '`list-companies` lists them';

export async function requireCompany(db: Knex, id: number, flag: string): Promise<CompanyRow> {
  const company = await findCompany(db, id);
  if (!company) throw new UsageError(`${flag} ${id}: there is no company ${id} (${LIST_HINT}).`);
  return { ...company, id: Number(company.id), provider_id: company.provider_id === null ? null : Number(company.provider_id) };
}

export async function requireProvider(db: Knex, id: number, flag = '--provider'): Promise<CompanyRow> {
  const company = await requireCompany(db, id, flag);
  if (company.type !== 'provider') {
    throw new UsageError(`${flag} ${id}: company ${id} '${company.name}' is a client, not a provider; pass a provider id (${LIST_HINT}).`);
  }
  return company;
}

export async function requireClient(db: Knex, id: number, flag = '--client'): Promise<CompanyRow> {
  const company = await requireCompany(db, id, flag);
  if (company.type !== 'client') {
    throw new UsageError(`${flag} ${id}: company ${id} '${company.name}' is a provider, not a client; pass a client id (${LIST_HINT}).`);
  }
  return company;
}

export async function requireUser(db: Knex, email: string, flag = '--user'): Promise<UserRow> {
  const user = await findUserByEmail(db, email.toLowerCase());
  if (!user) throw new UsageError(`${flag} ${email}: there is no user with this email (create it with create-user).`);
  return { ...user, id: Number(user.id) };
}

/** Runs a write; a unique violation (a twin written since the check) becomes the UsageError `taken`. */
export async function unlessTaken<T>(write: () => Promise<T>, taken: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new UsageError(taken);
    throw error;
  }
}
