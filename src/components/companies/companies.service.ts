/**
 * What other components and the operator CLI use of companies: the companies and clients a caller
 * may list, the modules on for a company, and the company row lock of writes that count what a
 * company owns. The SQL stays in companies.repository.ts, this component's own.
 */
import type { Knex } from 'knex';
import type { ModuleSlug } from '../../kernel/access.js';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import type { Paged } from '../../platform/db/queries.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import * as repository from './companies.repository.js';
import type { CompanyListRow, CompanyRow } from './companies.repository.js';

export type { CompanyListRow, CompanyRow };
type Company = Schema<'Company'>;

/** Companies a user belongs to, and the clients of the providers it belongs to (`all`: every company). */
export function listAccessibleCompanies(db: Knex, userId: number | 'all', page: PageRequest): Promise<Paged<Company>> {
  return repository.listAccessibleCompanies(db, userId, page);
}

/** The client companies in scope, optionally matching `search` in name or VAT code. */
export function listClients(db: Knex, scope: CompanyScope, search: string | undefined, page: PageRequest): Promise<Paged<Company>> {
  return repository.listClients(db, scope, search, page);
}

/** The client company in scope, or undefined. */
export function findClient(db: Knex, scope: CompanyScope, id: number): Promise<Company | undefined> {
  return repository.findClient(db, scope, id);
}

/** Any company by id (access decisions, the CLI). */
export function findCompany(db: Knex, id: number): Promise<CompanyRow | undefined> {
  return repository.findCompany(db, id);
}

/** The ids of a provider's clients. */
export function clientIdsOf(db: Knex, providerId: number): Promise<number[]> {
  return repository.clientIdsOf(db, providerId);
}

/** The slugs of the modules on for the company. */
export function activeModulesOf(db: Knex, companyId: number): Promise<string[]> {
  return repository.activeModulesOf(db, companyId);
}

/** The active modules of each of `companyIds`, in one query. */
export function activeModulesOfEach(db: Knex, companyIds: readonly number[]): Promise<Map<number, string[]>> {
  return repository.activeModulesOfEach(db, companyIds);
}

/** Every company, for the operator CLI. */
export function listCompanies(db: Knex): Promise<CompanyListRow[]> {
  return repository.listCompanies(db);
}

/** Module slug -> on, for the modules the company has a row for. */
export function modulesOf(db: Knex, companyId: number): Promise<Map<string, boolean>> {
  return repository.modulesOf(db, companyId);
}

/** Switches one module of the company on or off. */
export function setModule(db: Knex, companyId: number, module: string, active: boolean): Promise<void> {
  return repository.setModule(db, companyId, module, active);
}

/** Switches every module on for the company, except those in `off`. */
export function setModules(db: Knex, companyId: number, off: readonly ModuleSlug[] = []): Promise<void> {
  return repository.setModules(db, companyId, off);
}

/** A new company; answers its id. */
export function insertCompany(db: Knex, row: { name: string; type: 'provider' | 'client'; provider_id?: number; vat_code?: string }): Promise<number> {
  return repository.insertCompany(db, row);
}

/** Locks the company's row until the transaction ends: writes that count what a company owns take it in turn. */
export function lockCompany(tx: Knex.Transaction, companyId: number): Promise<void> {
  return repository.lockCompany(tx, companyId);
}
