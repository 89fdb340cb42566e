/** Companies, memberships and modules, as access decisions need them. */
import type { Knex } from 'knex';
import type { Role } from '../../kernel/access.js';
import type { CompanyType } from '../../kernel/company-scope.js';

export interface CompanyRow {
  id: number;
  name: string;
  type: CompanyType;
  provider_id: number | null;
}

export interface Membership {
  company_id: number;
  role: Role;
}

export async function findCompany(tx: Knex, id: number): Promise<CompanyRow | undefined> {
  const row = await tx('companies').select('id', 'name', 'type', 'provider_id').where('id', id).first();
  return row as CompanyRow | undefined;
}

export async function membershipsOf(tx: Knex, userId: number): Promise<Membership[]> {
  return tx('company_users').select('company_id', 'role').where('user_id', userId).orderBy('company_id');
}

export async function clientIdsOf(tx: Knex, providerId: number): Promise<number[]> {
  const rows: Array<{ id: number }> = await tx('companies').select('id').where('provider_id', providerId).orderBy('id');
  return rows.map((r) => r.id);
}

export async function activeModulesOf(tx: Knex, companyId: number): Promise<string[]> {
  const rows: Array<{ module: string }> = await tx('company_modules')
    .select('module')
    .where({ company_id: companyId })
    .where('active', true);
  return rows.map((r) => r.module);
}
