/** Companies, partners and warehouses: read only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { toApiTime } from '../../kernel/time.js';
import { afterId, paged, whereContains, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope, whereProviderInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

type Company = Schema<'Company'>;
type Partner = Schema<'Partner'>;
type Warehouse = Schema<'Warehouse'>;
type Timestamps = { created_at: string | Date; updated_at: string | Date };

function timestamps(row: Timestamps): { created_at: string; updated_at: string } {
  return { created_at: toApiTime(row.created_at), updated_at: toApiTime(row.updated_at) };
}

function toCompany(row: Company & Timestamps): Company {
  return { id: row.id, name: row.name, type: row.type, provider_id: row.provider_id, vat_code: row.vat_code, ...timestamps(row) };
}

function toPartner(row: Omit<Partner, 'client_3pl_id'> & Timestamps & { company_id: number }): Partner {
  return {
    id: row.id,
    client_3pl_id: row.company_id,
    type: row.type,
    code: row.code,
    name: row.name,
    vat_code: row.vat_code,
    email: row.email,
    phone: row.phone,
    address: row.address,
    active: Boolean(row.active),
    ...timestamps(row),
  };
}

function toWarehouse(row: Warehouse & Timestamps): Warehouse {
  return {
    id: row.id,
    company_id: row.company_id,
    code: row.code,
    name: row.name,
    address: row.address,
    active: Boolean(row.active),
    ...timestamps(row),
  };
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

export function listClients(tx: Knex, scope: CompanyScope, search: string | undefined, page: PageRequest): Promise<Paged<Company>> {
  return paged(whereContains(clientsQuery(tx, scope), ['name', 'vat_code'], search).orderBy('id'), page, toCompany);
}

export async function findClient(tx: Knex, scope: CompanyScope, id: number): Promise<Company | undefined> {
  const row = await clientsQuery(tx, scope).where('id', id).first();
  return row ? toCompany(row) : undefined;
}

function partnersQuery(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('partners').select('*'), scope, 'company_id');
}

export function listPartners(
  tx: Knex,
  scope: CompanyScope,
  filters: { type?: Partner['type']; search?: string },
  page: PageRequest,
): Promise<Paged<Partner>> {
  const query = whereContains(partnersQuery(tx, scope), ['name', 'code', 'vat_code'], filters.search).orderBy('id');
  if (filters.type) query.where('type', filters.type);
  return paged(query, page, toPartner);
}

export async function partnersAfter(
  tx: Knex,
  scope: CompanyScope,
  options: { after?: number; type?: Partner['type']; search?: string; limit: number },
): Promise<Partner[]> {
  const query = whereContains(partnersQuery(tx, scope), ['name', 'code', 'vat_code'], options.search);
  if (options.type) query.where('type', options.type);
  return (await afterId(query, options.after, options.limit)).map(toPartner);
}

export async function findPartner(tx: Knex, scope: CompanyScope, id: number): Promise<Partner | undefined> {
  const row = await partnersQuery(tx, scope).where('id', id).first();
  return row ? toPartner(row) : undefined;
}

function warehousesQuery(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereProviderInScope(tx('warehouses').select('*'), scope, 'company_id');
}

export function listWarehouses(tx: Knex, scope: CompanyScope, page: PageRequest): Promise<Paged<Warehouse>> {
  return paged(warehousesQuery(tx, scope).orderBy('id'), page, toWarehouse);
}

export async function warehousesAfter(tx: Knex, scope: CompanyScope, options: { after?: number; limit: number }): Promise<Warehouse[]> {
  return (await afterId(warehousesQuery(tx, scope), options.after, options.limit)).map(toWarehouse);
}

export async function findWarehouse(tx: Knex, scope: CompanyScope, id: number): Promise<Warehouse | undefined> {
  const row = await warehousesQuery(tx, scope).where('id', id).first();
  return row ? toWarehouse(row) : undefined;
}

export interface UnitRow {
  code: string;
  integer_only: boolean;
}

/** The provider's unit with this code (codes compare case-insensitively on both engines). */
export async function findUnit(tx: Knex, providerId: number, code: string): Promise<UnitRow | undefined> {
  const row = await tx('units')
    .select('code', 'integer_only')
    .where('company_id', providerId)
    .whereRaw('upper(code) = ?', [code.toUpperCase()])
    .first();
  return row ? { code: row.code, integer_only: Boolean(row.integer_only) } : undefined;
}

export async function unitCodes(tx: Knex, providerId: number): Promise<string[]> {
  const rows: Array<{ code: string }> = await tx('units').select('code').where('company_id', providerId).orderBy('code');
  return rows.map((r) => r.code);
}

/** The provider's units: code (upper case) -> whole-number flag. */
export async function unitFlags(tx: Knex, providerId: number): Promise<Map<string, boolean>> {
  const rows: Array<{ code: string; integer_only: boolean | number }> = await tx('units').select('code', 'integer_only').where('company_id', providerId);
  return new Map(rows.map((r) => [r.code.toUpperCase(), Boolean(r.integer_only)]));
}
