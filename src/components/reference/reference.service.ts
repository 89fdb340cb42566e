/** Reference data: companies, client companies, partners and warehouses, read only. */
import type { PageRequest } from '../../kernel/paging.js';
import type { Knex } from 'knex';
import { quoted, sameCode } from '../../kernel/text.js';
import { InputError, NotFoundError } from '../../platform/errors.js';
import type { Paged } from '../../platform/db/queries.js';
import type { Problems } from '../../platform/problems.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import * as companies from '../companies/companies.service.js';
import * as repository from './reference.repository.js';

const messages = {
  clientNotFound: (id: number) => `Client ${id} was not found.`,
  partnerNotFound: (id: number) => `Partner ${id} was not found.`,
  warehouseNotFound: (id: number) => `Warehouse ${id} was not found.`,
};

/** The companies the user may act for, whatever the scope of this request. */
export function listCompanies(ctx: TenantContext, page: PageRequest): Promise<Paged<Schema<'Company'>>> {
  const { principal } = ctx;
  const userId = principal.kind === 'user' && !principal.user.isSuperAdmin ? principal.user.id : 'all';
  return companies.listAccessibleCompanies(ctx.db, userId, page);
}

export function listClients(ctx: TenantContext, search: string | undefined, page: PageRequest): Promise<Paged<Schema<'Company'>>> {
  return companies.listClients(ctx.db, ctx.scope, search, page);
}

export async function getClient(ctx: TenantContext, id: number): Promise<Schema<'Company'>> {
  return (await companies.findClient(ctx.db, ctx.scope, id)) ?? notFound(messages.clientNotFound(id));
}

export function listPartners(
  ctx: TenantContext,
  filters: { type?: Schema<'PartnerType'>; search?: string },
  page: PageRequest,
): Promise<Paged<Schema<'Partner'>>> {
  return repository.listPartners(ctx.db, ctx.scope, filters, page);
}

export function partnersAfter(
  ctx: TenantContext,
  options: { after?: number; type?: Schema<'PartnerType'>; search?: string; limit: number },
): Promise<Array<Schema<'Partner'>>> {
  return repository.partnersAfter(ctx.db, ctx.scope, options);
}

/** One partner in scope, or undefined (GraphQL's `partner`). */
export function findPartner(ctx: TenantContext, id: number): Promise<Schema<'Partner'> | undefined> {
  return repository.findPartner(ctx.db, ctx.scope, id);
}

export async function getPartner(ctx: TenantContext, id: number): Promise<Schema<'Partner'>> {
  return (await findPartner(ctx, id)) ?? notFound(messages.partnerNotFound(id));
}

export function listWarehouses(ctx: TenantContext, page: PageRequest): Promise<Paged<Schema<'Warehouse'>>> {
  return repository.listWarehouses(ctx.db, ctx.scope, page);
}

export function warehousesAfter(ctx: TenantContext, options: { after?: number; limit: number }): Promise<Array<Schema<'Warehouse'>>> {
  return repository.warehousesAfter(ctx.db, ctx.scope, options);
}

/** One warehouse of the provider in scope, or undefined (GraphQL's `warehouse`). */
export function findWarehouse(ctx: TenantContext, id: number): Promise<Schema<'Warehouse'> | undefined> {
  return repository.findWarehouse(ctx.db, ctx.scope, id);
}

export async function getWarehouse(ctx: TenantContext, id: number): Promise<Schema<'Warehouse'>> {
  return (await findWarehouse(ctx, id)) ?? notFound(messages.warehouseNotFound(id));
}

/** Adds a problem on `field` unless `id` is a warehouse of the provider in scope. */
export async function checkWarehouse(ctx: TenantContext, id: number, field: string, problems: Problems): Promise<void> {
  if (!(await repository.findWarehouse(ctx.db, ctx.scope, id))) problems.add(field, `The ${field} must be a warehouse of the provider.`);
}

function notFound(message: string): never {
  throw new NotFoundError(message);
}

export type Unit = repository.UnitRow;

/**
 * A unit code matches the catalogue's by sameCode (kernel/text.ts): its ASCII letters in either
 * case (`kg` is KG) and every other character exactly, on both engines. The lookup is made here,
 * not by the database.
 */
function unitIn(units: readonly Unit[], code: string): Unit | undefined {
  return units.find((unit) => sameCode(unit.code, code));
}

function notInCatalogue(units: readonly Unit[], code: string, field: string): InputError {
  const known = units.map((unit) => unit.code).sort();
  return InputError.field(field, `The unit ${quoted(code)} is not in the unit catalogue. Known units: ${known.join(', ') || 'none'}.`);
}

/** The unit of the provider's catalogue with this code, or a 422 on `field` listing the known units. */
export async function requireUnit(db: Knex, providerId: number, code: string, field: string): Promise<Unit> {
  const units = await repository.listUnits(db, providerId);
  const unit = unitIn(units, code);
  if (unit) return unit;
  throw notInCatalogue(units, code, field);
}

/** requireUnit with the catalogue in hand: answers as requireUnit does. */
export type UnitLookup = (code: string, field: string) => Promise<Unit>;

/**
 * The provider's catalogue read once (for the items of a bulk request): a code it holds answers at
 * once; any other is looked up again as requireUnit does (a unit added meanwhile is found).
 */
export async function unitLookup(db: Knex, providerId: number): Promise<UnitLookup> {
  const units = await repository.listUnits(db, providerId);
  return (code, field) => {
    const unit = unitIn(units, code);
    return unit ? Promise.resolve(unit) : requireUnit(db, providerId, code, field);
  };
}

/** The provider's unit catalogue as the whole-number rule reads it: code (asciiUpper) -> whole units only. */
export function unitFlags(db: Knex, providerId: number): Promise<Map<string, boolean>> {
  return repository.unitFlags(db, providerId);
}

/**
 * The code the company already has that is `code` by sameCode (ASCII letters in either case, every
 * other character exactly; the same on both engines), or undefined. The database's unique key of
 * (company_id, code) compares exactly (migration 018): this is where a second `kg` beside `KG` is
 * refused, by the one writer of these codes, the operator CLI.
 */
export async function existingCode(db: Knex, table: 'warehouses' | 'units' | 'partners', companyId: number, code: string): Promise<string | undefined> {
  return (await repository.codesOf(db, table, companyId)).find((other) => sameCode(other, code));
}
