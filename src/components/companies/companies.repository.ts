/**
 * Companies and their modules: every statement on `companies` and `company_modules` (access
 * decisions, the companies and clients the API lists, the operator CLI, the demo seed).
 */
import type { Knex } from 'knex';
import { MODULES, type ModuleSlug } from '../../kernel/access.js';
import type { CompanyScope, CompanyType } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { paged, whereContains, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

type Company = Schema<'Company'>;
type Timestamps = { created_at: string | Date; updated_at: string | Date };

export interface CompanyRow {
  id: number;
  name: string;
  type: CompanyType;
  provider_id: number | null;
}

export interface CompanyListRow extends CompanyRow {
  vat_code: string | null;
}

function toCompany(row: Company & Timestamps): Company {
  return { id: row.id, name: row.name, type: row.type, provider_id: row.provider_id, vat_code: row.vat_code, created_at: toApiTime(row.created_at), updated_at: toApiTime(row.updated_at) };
}

const COMPANY_COLUMNS = ['id', 'name', 'type', 'provider_id', 'vat_code', 'created_at', 'updated_at'];

/** Companies a user belongs to, and the clients of the providers it belongs to (`all`: every company). */
export function listAccessibleCompanies(tx: Knex, userId: number | 'all', page: PageRequest): Promise<Paged<Company>> {
  const query = tx('companies').select(COMPANY_COLUMNS).orderBy('id');
  if (userId !== 'all') {
    const memberOf = tx('company_users').select('company_id').where('user_id', userId);
    query.where((q) => q.whereIn('id', memberOf).orWhereIn('provider_id', memberOf.clone()));
  }
  return paged(query, page, toCompany);
}

function clientsQuery(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('companies').select(COMPANY_COLUMNS).where('type', 'client'), scope, 'id');
}

export async function listClients(tx: Knex, scope: CompanyScope, search: string | undefined, page: PageRequest): Promise<Paged<Company>> {
  const query = clientsQuery(tx, scope);
  await whereContains(tx, query, ['name', 'vat_code'], search);
  return paged(query.orderBy('id'), page, toCompany);
}

export async function findClient(tx: Knex, scope: CompanyScope, id: number): Promise<Company | undefined> {
  const row = await clientsQuery(tx, scope).where('id', id).first();
  return row ? toCompany(row) : undefined;
}

export async function findCompany(tx: Knex, id: number): Promise<CompanyRow | undefined> {
  const row = await tx('companies').select('id', 'name', 'type', 'provider_id').where('id', id).first();
  return row as CompanyRow | undefined;
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

/** The active modules of each of `companyIds` (a company with none maps to an empty list), in one query. */
export async function activeModulesOfEach(tx: Knex, companyIds: readonly number[]): Promise<Map<number, string[]>> {
  const modules = new Map<number, string[]>(companyIds.map((id) => [id, []]));
  if (companyIds.length === 0) return modules;
  const rows: Array<{ company_id: number | string; module: string }> = await tx('company_modules')
    .select('company_id', 'module')
    .whereIn('company_id', companyIds as number[])
    .where('active', true);
  for (const row of rows) modules.get(Number(row.company_id))?.push(row.module);
  return modules;
}

export async function listCompanies(tx: Knex): Promise<CompanyListRow[]> {
  const rows: CompanyListRow[] = await tx('companies').select('id', 'name', 'type', 'provider_id', 'vat_code').orderBy('id');
  return rows.map((r) => ({ ...r, id: Number(r.id), provider_id: r.provider_id === null ? null : Number(r.provider_id) }));
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

/** Switches every module on for the company, except those in `off`. */
export async function setModules(db: Knex, companyId: number, off: readonly ModuleSlug[] = []): Promise<void> {
  await db('company_modules').where('company_id', companyId).delete();
  await db('company_modules').insert(MODULES.map((m) => ({ company_id: companyId, module: m.slug, active: !off.includes(m.slug) })));
}

export function insertCompany(db: Knex, row: { name: string; type: 'provider' | 'client'; provider_id?: number; vat_code?: string }): Promise<number> {
  const now = nowDb();
  return insertReturningId(db, 'companies', { provider_id: null, vat_code: null, ...row, created_at: now, updated_at: now });
}

/** Locks the company's row until the transaction ends (MariaDB; SQLite writes one at a time): writes that count what a company owns take it in turn. */
export async function lockCompany(tx: Knex.Transaction, companyId: number): Promise<void> {
  await tx('companies').select('id').where('id', companyId).forUpdate();
}
