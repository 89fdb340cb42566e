/** Reference data: the provider's warehouses and unit catalogue, and the partners of a client. */
import type { Knex } from 'knex';
import { UsageError } from '../args.js';
import { insertPartner, insertUnit, insertWarehouse } from '../../components/reference/reference.repository.js';
import { existingCode } from '../../components/reference/reference.service.js';
import { defineCommand } from '../command.js';
import { requireClient, requireProvider, unlessTaken } from '../lookups.js';

const provider = { kind: 'id', required: true, help: 'the provider company id' } as const;

const KINDS = { warehouses: 'warehouse', units: 'unit', partners: 'partner' } as const;

/**
 * Refuses `code` when the company already has it by sameCode (ASCII letters in either case, every
 * other character exactly, on both engines), naming the code it has. Answers the refusal of a
 * twin written since the check (for unlessTaken): the unique key compares exactly, so that twin
 * is `code` itself.
 */
async function refuseTakenCode(db: Knex, table: keyof typeof KINDS, owner: { kind: 'provider' | 'client'; id: number }, code: string): Promise<string> {
  const kind = KINDS[table];
  const taken = (existing: string) => `--code ${code}: ${owner.kind} ${owner.id} already has the ${kind} ${existing} (${kind} codes ignore the case of ASCII letters).`;
  const existing = await existingCode(db, table, owner.id, code);
  if (existing !== undefined) throw new UsageError(taken(existing));
  return taken(code);
}

export const createWarehouse = defineCommand({
  name: 'create-warehouse',
  summary: 'Create a warehouse of a provider (its code is unique within the provider).',
  options: {
    provider,
    code: { kind: 'text', max: 32, required: true, help: 'warehouse code, e.g. WH-BUC' },
    name: { kind: 'text', max: 255, required: true, help: 'warehouse name' },
    address: { kind: 'text', max: 500, help: 'postal address' },
  },
  async run(db, o, out) {
    const company = await requireProvider(db, o.provider);
    const taken = await refuseTakenCode(db, 'warehouses', { kind: 'provider', id: company.id }, o.code);
    const id = await unlessTaken(
      () => insertWarehouse(db, { company_id: company.id, code: o.code, name: o.name, address: o.address ?? null }),
      taken,
    );
    out(`Created warehouse ${id} ${o.code} '${o.name}' of provider ${company.id}.`);
  },
});

export const createUnit = defineCommand({
  name: 'create-unit',
  summary: "Add a unit to a provider's unit catalogue; whole-only units refuse fractional quantities.",
  options: {
    provider,
    code: { kind: 'text', max: 16, required: true, help: 'unit code as documents send it, e.g. BUC, KG' },
    name: { kind: 'text', max: 64, required: true, help: 'unit name, e.g. Piece' },
    wholeOnly: { kind: 'bool', required: true, help: 'true: quantities in this unit are whole numbers' },
  },
  async run(db, o, out) {
    const company = await requireProvider(db, o.provider);
    const taken = await refuseTakenCode(db, 'units', { kind: 'provider', id: company.id }, o.code);
    const id = await unlessTaken(
      () => insertUnit(db, { company_id: company.id, code: o.code, name: o.name, integer_only: o.wholeOnly }),
      taken,
    );
    out(`Created unit ${id} ${o.code} '${o.name}' of provider ${company.id} (${o.wholeOnly ? 'whole numbers only' : 'decimals allowed'}).`);
  },
});

export const createPartner = defineCommand({
  name: 'create-partner',
  summary: 'Create a supplier or client partner of a client company (code, if given, unique within the client).',
  options: {
    client: { kind: 'id', required: true, help: 'the client company id' },
    provider: { kind: 'id', help: 'the provider the client must belong to (a safety check)' },
    type: { kind: 'choice', values: ['supplier', 'client'], required: true, help: 'supplier (inbound) or client (outbound)' },
    name: { kind: 'text', max: 255, required: true, help: 'partner name' },
    code: { kind: 'text', max: 64, help: 'partner code' },
    vat: { kind: 'text', max: 32, help: 'VAT code' },
    email: { kind: 'email', help: 'contact email' },
    phone: { kind: 'text', max: 64, help: 'contact phone' },
    address: { kind: 'text', max: 500, help: 'postal address' },
  },
  async run(db, o, out) {
    const client = await requireClient(db, o.client);
    if (o.provider !== undefined && client.provider_id !== o.provider) {
      throw new UsageError(`--client ${client.id}: client '${client.name}' belongs to provider ${client.provider_id}, not to provider ${o.provider}.`);
    }
    const taken = o.code === undefined ? '' : await refuseTakenCode(db, 'partners', { kind: 'client', id: client.id }, o.code);
    const id = await unlessTaken(
      () =>
        insertPartner(db, {
          company_id: client.id,
          type: o.type,
          name: o.name,
          code: o.code ?? null,
          vat_code: o.vat ?? null,
          email: o.email ?? null,
          phone: o.phone ?? null,
          address: o.address ?? null,
        }),
      taken,
    );
    out(`Created ${o.type} partner ${id}${o.code ? ` ${o.code}` : ''} '${o.name}' of client ${client.id}.`);
  },
});

export const referenceCommands = [createWarehouse, createUnit, createPartner];
