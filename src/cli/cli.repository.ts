/** The SQL of the operator CLI that no component repository has: Knex only, plain objects out. */
import type { Knex } from 'knex';
import type { Role } from '../kernel/access.js';
import type { CompanyType } from '../kernel/company-scope.js';
import { nowDb } from '../kernel/time.js';

export interface CompanyListRow {
  id: number;
  name: string;
  type: CompanyType;
  provider_id: number | null;
  vat_code: string | null;
}

export async function listCompanies(tx: Knex): Promise<CompanyListRow[]> {
  const rows: CompanyListRow[] = await tx('companies').select('id', 'name', 'type', 'provider_id', 'vat_code').orderBy('id');
  return rows.map((r) => ({ ...r, id: Number(r.id), provider_id: r.provider_id === null ? null : Number(r.provider_id) }));
}

/** The id of the row of `table` of the company with this code (codes compare case-insensitively on both engines). */
export async function idByCode(tx: Knex, table: 'warehouses' | 'partners' | 'units', companyId: number, code: string): Promise<number | undefined> {
  const row = await tx(table).select('id').where('company_id', companyId).whereRaw('upper(code) = ?', [code.toUpperCase()]).first();
  return row ? Number(row.id) : undefined;
}

export async function findUserById(tx: Knex, id: number): Promise<{ id: number; email: string } | undefined> {
  const row = await tx('users').select('id', 'email').where('id', id).first();
  return row ? { id: Number(row.id), email: row.email } : undefined;
}

export async function roleOf(tx: Knex, userId: number, companyId: number): Promise<Role | undefined> {
  const row = await tx('company_users').select('role').where({ user_id: userId, company_id: companyId }).first();
  return row?.role as Role | undefined;
}

export async function updateRole(tx: Knex, userId: number, companyId: number, role: Role): Promise<void> {
  await tx('company_users').where({ user_id: userId, company_id: companyId }).update({ role });
}

/** Module slug -> on, for the modules the company has a row for. */
export async function modulesOf(tx: Knex, companyId: number): Promise<Map<string, boolean>> {
  const rows: Array<{ module: string; active: boolean | number }> = await tx('company_modules').select('module', 'active').where('company_id', companyId);
  return new Map(rows.map((r) => [r.module, Boolean(r.active)]));
}

export async function setModule(tx: Knex, companyId: number, module: string, active: boolean): Promise<void> {
  const updated = await tx('company_modules').where({ company_id: companyId, module }).update({ active });
  if (updated === 0) await tx('company_modules').insert({ company_id: companyId, module, active });
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
