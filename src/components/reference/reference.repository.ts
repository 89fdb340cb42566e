/** Partners, warehouses and units: reads within the company scope, and the writes the operator CLI makes. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { asciiUpper } from '../../kernel/text.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { afterId, paged, whereContains, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope, whereProviderInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

type Partner = Schema<'Partner'>;
type Warehouse = Schema<'Warehouse'>;
type Timestamps = { created_at: string | Date; updated_at: string | Date };

function timestamps(row: Timestamps): { created_at: string; updated_at: string } {
  return { created_at: toApiTime(row.created_at), updated_at: toApiTime(row.updated_at) };
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

function partnersQuery(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('partners').select('*'), scope, 'company_id');
}

export async function listPartners(
  tx: Knex,
  scope: CompanyScope,
  filters: { type?: Partner['type']; search?: string },
  page: PageRequest,
): Promise<Paged<Partner>> {
  const query = partnersQuery(tx, scope).orderBy('id');
  await whereContains(tx, query, ['name', 'code', 'vat_code'], filters.search);
  if (filters.type) query.where('type', filters.type);
  return paged(query, page, toPartner);
}

export async function partnersAfter(
  tx: Knex,
  scope: CompanyScope,
  options: { after?: number; type?: Partner['type']; search?: string; limit: number },
): Promise<Partner[]> {
  const query = partnersQuery(tx, scope);
  await whereContains(tx, query, ['name', 'code', 'vat_code'], options.search);
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

/** The provider's units, oldest first. */
export async function listUnits(tx: Knex, providerId: number): Promise<UnitRow[]> {
  const rows: Array<{ code: string; integer_only: boolean | number }> = await tx('units').select('code', 'integer_only').where('company_id', providerId).orderBy('id');
  return rows.map((r) => ({ code: r.code, integer_only: Boolean(r.integer_only) }));
}

/** The provider's units: code (asciiUpper, kernel/text.ts) -> whole-number flag. */
export async function unitFlags(tx: Knex, providerId: number): Promise<Map<string, boolean>> {
  const rows: Array<{ code: string; integer_only: boolean | number }> = await tx('units').select('code', 'integer_only').where('company_id', providerId);
  return new Map(rows.map((r) => [asciiUpper(r.code), Boolean(r.integer_only)]));
}

function stamps(): { created_at: string; updated_at: string } {
  const now = nowDb();
  return { created_at: now, updated_at: now };
}

export function insertWarehouse(db: Knex, row: { company_id: number; code: string; name: string; address?: string | null }): Promise<number> {
  return insertReturningId(db, 'warehouses', { address: null, active: true, ...row, ...stamps() });
}

export function insertPartner(
  db: Knex,
  row: { company_id: number; type: 'supplier' | 'client'; name: string; code?: string | null; vat_code?: string | null; email?: string | null; phone?: string | null; address?: string | null },
): Promise<number> {
  return insertReturningId(db, 'partners', { code: null, vat_code: null, email: null, phone: null, address: null, active: true, ...row, ...stamps() });
}

export function insertUnit(db: Knex, row: { company_id: number; code: string; name: string; integer_only: boolean }): Promise<number> {
  return insertReturningId(db, 'units', { ...row, ...stamps() });
}

/**
 * The codes of the company's rows of `table` (partners without a code left out), as stored. The
 * operator CLI compares them with a new code by sameCode (kernel/text.ts), the same on both
 * engines; the database's unique key of (company_id, code) compares exactly (migration 018).
 */
export async function codesOf(tx: Knex, table: 'warehouses' | 'partners' | 'units', companyId: number): Promise<string[]> {
  const rows: Array<{ code: string }> = await tx(table).select('code').where('company_id', companyId).whereNotNull('code').orderBy('id');
  return rows.map((r) => r.code);
}
