/**
 * Who may act for which company, with which role, and which modules are on: the tenancy rules of
 * the contract. A member of a provider may act for the provider and for each of its clients; a
 * super-admin for any company, and without X-Company-Id for all of them (reads).
 */
import type { Knex } from 'knex';
import { MODULES, type Role } from '../../kernel/access.js';
import { ALL_COMPANIES, type CompanyScope } from '../../kernel/company-scope.js';
import { ForbiddenError } from '../../platform/errors.js';
import type { Access, Principal } from '../../kernel/identity.js';
import * as repository from './access.repository.js';
import type { Membership } from './access.repository.js';
import { activeModulesOf, clientIdsOf, findCompany, type CompanyRow } from '../companies/companies.service.js';

const EVERY_MODULE: ReadonlySet<string> = new Set(MODULES.map((m) => m.slug));
const INTEGRATION_ROLE: Role = 'operator';

const messages = {
  noAccess: (id: number) => `You do not have access to company ${id}.`,
  noCompany: 'You are not a member of any company.',
};

async function scopeOf(db: Knex, company: CompanyRow): Promise<CompanyScope> {
  const provider = company.type === 'provider';
  return {
    kind: 'company',
    companyId: company.id,
    companyName: company.name,
    companyType: company.type,
    providerId: provider ? company.id : company.provider_id!,
    clientIds: provider ? await clientIdsOf(db, company.id) : [company.id],
  };
}

/** The role of a member for `company`: its own membership, or its membership of the provider. */
export function roleFor(memberships: readonly Membership[], company: CompanyRow): Role | undefined {
  const direct = memberships.find((m) => m.company_id === company.id);
  if (direct) return direct.role;
  if (company.type === 'client') return memberships.find((m) => m.company_id === company.provider_id)?.role;
  return undefined;
}

async function accessFor(db: Knex, company: CompanyRow, role: Role): Promise<Access> {
  const [scope, modules] = await Promise.all([scopeOf(db, company), activeModulesOf(db, company.id)]);
  return { scope, role, activeModules: new Set(modules) };
}

export async function resolveAccess(db: Knex, principal: Principal, companyId: number | undefined): Promise<Access> {
  if (principal.kind === 'integration') {
    if (companyId === undefined) return { scope: ALL_COMPANIES, role: INTEGRATION_ROLE, activeModules: EVERY_MODULE };
    const company = await findCompany(db, companyId);
    if (!company) throw new ForbiddenError(messages.noAccess(companyId));
    return accessFor(db, company, INTEGRATION_ROLE);
  }
  const { user } = principal;
  if (companyId === undefined && user.isSuperAdmin) {
    return { scope: ALL_COMPANIES, role: 'admin', activeModules: EVERY_MODULE };
  }
  const memberships = await repository.membershipsOf(db, user.id);
  const target = companyId ?? user.primaryCompanyId ?? memberships[0]?.company_id;
  if (target === undefined) throw new ForbiddenError(messages.noCompany);
  const company = await findCompany(db, target);
  const role = company && (user.isSuperAdmin ? 'admin' : roleFor(memberships, company));
  if (!company || !role) throw new ForbiddenError(messages.noAccess(target));
  return accessFor(db, company, role);
}

/** The active modules of a company (for routes that name their company in the path). */
export async function activeModules(db: Knex, companyId: number): Promise<ReadonlySet<string>> {
  return new Set(await activeModulesOf(db, companyId));
}
