/**
 * Row builders for set-up data: the demo seed and the test factories build companies, users,
 * memberships, modules, warehouses, partners and units with these.
 */
import type { Knex } from 'knex';
import { insertReturningId } from '../../src/platform/db/database.js';
import { insertArticle as insertArticleRow } from '../../src/components/articles/articles.repository.js';
import { MODULES, type ModuleSlug, type Role } from '../../src/kernel/access.js';
import { nowDb } from '../../src/kernel/time.js';

function stamps(): { created_at: string; updated_at: string } {
  const now = nowDb();
  return { created_at: now, updated_at: now };
}

export function insertCompany(db: Knex, row: { name: string; type: 'provider' | 'client'; provider_id?: number; vat_code?: string }): Promise<number> {
  return insertReturningId(db, 'companies', { provider_id: null, vat_code: null, ...row, ...stamps() });
}

/** Switches every module on for the company, except those in `off`. */
export async function setModules(db: Knex, companyId: number, off: readonly ModuleSlug[] = []): Promise<void> {
  await db('company_modules').where('company_id', companyId).delete();
  await db('company_modules').insert(MODULES.map((m) => ({ company_id: companyId, module: m.slug, active: !off.includes(m.slug) })));
}

export function insertUser(
  db: Knex,
  row: { name: string; email: string; password_hash: string; is_super_admin?: boolean; primary_company_id?: number | null },
): Promise<number> {
  return insertReturningId(db, 'users', { is_super_admin: false, primary_company_id: null, ...row, email: row.email.toLowerCase(), ...stamps() });
}

export async function addMembership(db: Knex, userId: number, companyId: number, role: Role): Promise<void> {
  await db('company_users').insert({ user_id: userId, company_id: companyId, role });
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

/** An article with the next id the service assigns (the sequence of articles.repository.ts). */
export async function insertArticle(
  db: Knex,
  row: { company_id: number; article_code: string; description: string; um3pl: string; name?: string | null; barcode?: string | null; integer_only_um3pl_quantity?: boolean; active?: boolean },
): Promise<number> {
  return (await insertArticleRow(db, { name: null, barcode: null, integer_only_um3pl_quantity: false, active: true, ...row })).id;
}
