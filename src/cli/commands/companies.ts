/** Companies: the provider (the 3PL itself) and its client companies, created with every module on. */
import type { Knex } from 'knex';
import { MODULES } from '../../kernel/access.js';
import type { CompanyType } from '../../kernel/company-scope.js';
import { UsageError } from '../args.js';
import { insertCompany, listCompanies, setModules } from '../../components/companies/companies.service.js';
import { defineCommand } from '../command.js';
import { requireProvider } from '../lookups.js';
import { jsonOption, printList, table } from '../table.js';

const EVERY_MODULE = MODULES.map((m) => m.slug).join(', ');

const name = { kind: 'text', max: 255, required: true, help: 'the company name' } as const;
const vat = { kind: 'text', max: 32, help: 'VAT code' } as const;

/** Refuses a second company of the same type and name under the same provider (a re-run script). */
async function refuseTwin(db: Knex, type: CompanyType, companyName: string, providerId: number | null): Promise<void> {
  const twin = (await listCompanies(db)).find(
    (c) => c.type === type && c.provider_id === providerId && c.name.toLowerCase() === companyName.toLowerCase(),
  );
  if (twin) throw new UsageError(`--name: there is already a ${type} named '${twin.name}' (company ${twin.id}).`);
}

async function createCompany(db: Knex, row: { name: string; type: CompanyType; provider_id?: number; vat_code?: string }): Promise<number> {
  return db.transaction(async (tx) => {
    const id = await insertCompany(tx, row);
    await setModules(tx, id);
    return id;
  });
}

export const createProvider = defineCommand({
  name: 'create-provider',
  summary: 'Create a provider company (the 3PL that runs the warehouses), with every module on.',
  options: { name, vat },
  async run(db, o, out) {
    await refuseTwin(db, 'provider', o.name, null);
    const id = await createCompany(db, { name: o.name, type: 'provider', ...(o.vat ? { vat_code: o.vat } : {}) });
    out(`Created provider company ${id} '${o.name}' with every module on (${EVERY_MODULE}).`);
  },
});

export const createClient = defineCommand({
  name: 'create-client',
  summary: 'Create a client company (owner of goods and documents) of a provider, with every module on.',
  options: { provider: { kind: 'id', required: true, help: 'the provider company id' }, name, vat },
  async run(db, o, out, changed) {
    const provider = await requireProvider(db, o.provider);
    await refuseTwin(db, 'client', o.name, provider.id);
    const id = await createCompany(db, { name: o.name, type: 'client', provider_id: provider.id, ...(o.vat ? { vat_code: o.vat } : {}) });
    // The provider's members now act for one more client.
    changed({ kind: 'company', companyId: provider.id });
    out(`Created client company ${id} '${o.name}' of provider ${provider.id} with every module on (${EVERY_MODULE}).`);
  },
});

export const listCompaniesCommand = defineCommand({
  name: 'list-companies',
  summary: 'List every company: each provider followed by its clients.',
  options: { json: jsonOption },
  migrateFirst: false,
  async run(db, o, out) {
    const companies = await listCompanies(db);
    const ordered = companies
      .filter((c) => c.type === 'provider')
      .flatMap((p) => [p, ...companies.filter((c) => c.provider_id === p.id)]);
    const orphans = companies.filter((c) => !ordered.includes(c));
    const records = [...ordered, ...orphans].map((c) => ({ id: c.id, type: c.type, provider_id: c.provider_id, name: c.name, vat_code: c.vat_code }));
    printList(out, o.json, records, () => {
      if (records.length === 0) return out('There are no companies yet; start with create-provider.');
      const rows = records.map((c) => [String(c.id), c.type, c.provider_id === null ? '' : String(c.provider_id), c.name, c.vat_code ?? '']);
      for (const line of table(['id', 'type', 'provider', 'name', 'vat'], rows)) out(line);
    });
  },
});

export const companyCommands = [createProvider, createClient, listCompaniesCommand];
