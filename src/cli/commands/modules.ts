/** Company modules: which parts of the service a company has switched on (api is needed by every data route). */
import { MODULES } from '../../kernel/access.js';
import { UsageError } from '../args.js';
import { modulesOf, setModule } from '../../components/companies/companies.service.js';
import { defineCommand } from '../command.js';
import { requireCompany } from '../lookups.js';
import { jsonOption, printList, table } from '../table.js';

const SLUGS = MODULES.map((m) => m.slug);
const company = { kind: 'id', required: true, help: 'the company id' } as const;

export const setModuleCommand = defineCommand({
  name: 'set-module',
  summary: 'Switch a module on or off for a company (a switched-off module answers 403).',
  options: {
    company,
    module: { kind: 'choice', values: SLUGS, required: true, help: 'the module' },
    on: { kind: 'flag', help: 'switch it on' },
    off: { kind: 'flag', help: 'switch it off' },
  },
  check(o) {
    if (o.on === o.off) throw new UsageError('set-module needs exactly one of --on or --off.');
  },
  async run(db, o, out, changed) {
    const target = await requireCompany(db, o.company, '--company');
    const where = `company ${target.id} '${target.name}'`;
    const was = await db.transaction(async (tx) => {
      const before = (await modulesOf(tx, target.id)).get(o.module) ?? false;
      if (before !== o.on) await setModule(tx, target.id, o.module, o.on);
      return before;
    });
    const state = o.on ? 'on' : 'off';
    if (was === o.on) {
      out(`Module ${o.module} is already ${state} for ${where}; nothing changed.`);
      return;
    }
    changed({ kind: 'company', companyId: target.id });
    out(`Switched module ${o.module} ${state} for ${where}.`);
    if (o.module === 'api' && !o.on) out(`Note: every data route needs the api module, so ${where} now gets 403 on all of them.`);
  },
});

export const listModules = defineCommand({
  name: 'list-modules',
  summary: 'List the modules of a company, on or off.',
  options: { company, json: jsonOption },
  migrateFirst: false,
  async run(db, o, out) {
    const target = await requireCompany(db, o.company, '--company');
    const states = await modulesOf(db, target.id);
    const records = MODULES.map((m) => ({ module: m.slug, on: states.get(m.slug) ?? false }));
    printList(out, o.json, records, () => {
      out(`Modules of company ${target.id} '${target.name}':`);
      for (const line of table(['module', 'state'], records.map((r) => [r.module, r.on ? 'on' : 'off']))) out(`  ${line}`);
    });
  },
});

export const moduleCommands = [setModuleCommand, listModules];
