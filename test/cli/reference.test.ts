/** Operator CLI: create-warehouse, create-unit, create-partner. */
import { expect } from 'chai';
import { runDatabase } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { idAfter, ok, refused } from './cli-helpers.js';

async function providerWithClient(): Promise<{ provider: number; client: number; clientName: string }> {
  const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
  const clientName = unique('Client ');
  const client = idAfter((await ok('create-client', '--provider', String(provider), '--name', clientName))[0], 'client company');
  return { provider, client, clientName };
}

describe('CLI create-warehouse', () => {
  it('When a warehouse is created, Then it belongs to the provider; its code again (any case) is refused', async () => {
    const { provider, client, clientName } = await providerWithClient();
    const [line] = await ok('create-warehouse', '--provider', String(provider), '--code', 'WH-BUC', '--name', 'Bucharest North', '--address', 'Sos. Industriilor 10');
    const id = idAfter(line, 'warehouse');
    expect(line).to.equal(`Created warehouse ${id} WH-BUC 'Bucharest North' of provider ${provider}.`);
    const { db } = await runDatabase();
    expect(await db('warehouses').where('id', id).first()).to.include({ company_id: provider, code: 'WH-BUC', address: 'Sos. Industriilor 10' });
    await refused(['create-warehouse', '--provider', String(provider), '--code', 'wh-buc', '--name', 'Again'], `--code wh-buc: provider ${provider} already has the warehouse WH-BUC (warehouse codes ignore the case of ASCII letters).`);
    await refused(
      ['create-warehouse', '--provider', String(client), '--code', 'WH-X', '--name', 'X'],
      `--provider ${client}: company ${client} '${clientName}' is a client, not a provider; pass a provider id (\`list-companies\` lists them).`,
    );
    await refused(['create-warehouse', '--provider', String(provider), '--name', 'X'], 'create-warehouse needs --code <text> (warehouse code, e.g. WH-BUC).');
  });
});

describe('CLI create-unit', () => {
  it('When units are created, Then their whole-number flag is stored; a duplicate code or a bad flag is refused', async () => {
    const { provider } = await providerWithClient();
    const [piece] = await ok('create-unit', '--provider', String(provider), '--code', 'BUC', '--name', 'Piece', '--whole-only', 'true');
    expect(piece).to.equal(`Created unit ${idAfter(piece, 'unit')} BUC 'Piece' of provider ${provider} (whole numbers only).`);
    const [kg] = await ok('create-unit', '--provider', String(provider), '--code', 'KG', '--name', 'Kilogram', '--whole-only', 'false');
    expect(kg).to.match(/\(decimals allowed\)\.$/);
    const { db } = await runDatabase();
    const units = await db('units').where('company_id', provider).orderBy('id');
    expect(units.map((u) => [u.code, Boolean(u.integer_only)])).to.deep.equal([['BUC', true], ['KG', false]]);
    await refused(['create-unit', '--provider', String(provider), '--code', 'buc', '--name', 'Piece', '--whole-only', 'true'], `--code buc: provider ${provider} already has the unit BUC (unit codes ignore the case of ASCII letters).`);
    await refused(['create-unit', '--provider', String(provider), '--code', 'PAL', '--name', 'Pallet', '--whole-only', 'yes'], '--whole-only must be true or false (got "yes").');
    await refused(['create-unit', '--provider', String(provider), '--code', 'PAL', '--name', 'Pallet'], 'create-unit needs --whole-only true|false (true: quantities in this unit are whole numbers).');
    await refused(['create-unit', '--provider', String(provider), '--code', 'X'.repeat(17), '--name', 'Long', '--whole-only', 'true'], '--code must be at most 16 characters (got 17).');
  });
});

describe('CLI create-partner', () => {
  it('When partners are created, Then they belong to the client with their fields', async () => {
    const { provider, client } = await providerWithClient();
    const [line] = await ok(
      'create-partner', '--client', String(client), '--provider', String(provider), '--type', 'supplier', '--name', 'Fresh Farms SRL',
      '--code', 'SUP-01', '--vat', 'RO40000004', '--email', 'Orders@FreshFarms.example', '--phone', '+40 21 000', '--address', 'Str. Mare 1',
    );
    const id = idAfter(line, 'partner');
    expect(line).to.equal(`Created supplier partner ${id} SUP-01 'Fresh Farms SRL' of client ${client}.`);
    const { db } = await runDatabase();
    expect(await db('partners').where('id', id).first()).to.include({
      company_id: client, type: 'supplier', code: 'SUP-01', vat_code: 'RO40000004', email: 'orders@freshfarms.example', phone: '+40 21 000', address: 'Str. Mare 1',
    });
    const [customer] = await ok('create-partner', '--client', String(client), '--type', 'client', '--name', 'Mega Market');
    expect(customer).to.equal(`Created client partner ${idAfter(customer, 'partner')} 'Mega Market' of client ${client}.`);
  });

  it('When the client is a provider, of another provider, or the type, code or email is wrong, Then it exits 2', async () => {
    const { provider, client, clientName } = await providerWithClient();
    const other = await providerWithClient();
    const providerName = (await (await runDatabase()).db('companies').where('id', provider).first()).name;
    await refused(
      ['create-partner', '--client', String(provider), '--type', 'supplier', '--name', 'X'],
      `--client ${provider}: company ${provider} '${providerName}' is a provider, not a client; pass a client id (\`list-companies\` lists them).`,
    );
    await refused(
      ['create-partner', '--client', String(client), '--provider', String(other.provider), '--type', 'supplier', '--name', 'X'],
      `--client ${client}: client '${clientName}' belongs to provider ${provider}, not to provider ${other.provider}.`,
    );
    await refused(['create-partner', '--client', String(client), '--type', 'customer', '--name', 'X'], '--type must be one of supplier, client (got "customer").');
    await refused(['create-partner', '--client', String(client), '--type', 'client', '--name', 'X', '--email', 'not-an-email'], '--email must be an email address (got "not-an-email").');
    await ok('create-partner', '--client', String(client), '--type', 'client', '--name', 'First', '--code', 'CLI-1');
    await refused(['create-partner', '--client', String(client), '--type', 'supplier', '--name', 'Second', '--code', 'cli-1'], `--code cli-1: client ${client} already has the partner CLI-1 (partner codes ignore the case of ASCII letters).`);
    // Another client may use the same code.
    await ok('create-partner', '--client', String(other.client), '--type', 'client', '--name', 'First', '--code', 'CLI-1');
  });
});

describe('CLI codes: ASCII letters in either case, every other character exactly, on both engines', () => {
  const codesOf = async (table: string, companyId: number) => (await (await runDatabase()).db(table).where('company_id', companyId).orderBy('id')).map((r) => r.code);

  it('When warehouse codes differ by an accented letter or its case, Then each is a warehouse of its own', async () => {
    const { provider } = await providerWithClient();
    for (const code of ['WH-É1', 'wh-é1', 'WH-E1']) await ok('create-warehouse', '--provider', String(provider), '--code', code, '--name', code);
    expect(await codesOf('warehouses', provider)).to.deep.equal(['WH-É1', 'wh-é1', 'WH-E1']);
    await refused(
      ['create-warehouse', '--provider', String(provider), '--code', 'wh-É1', '--name', 'Again'],
      `--code wh-É1: provider ${provider} already has the warehouse WH-É1 (warehouse codes ignore the case of ASCII letters).`,
    );
  });

  it('When unit codes differ by an emoji, Then each is a unit of its own; a code differing only in the case of ASCII letters is refused, naming the unit there', async () => {
    const { provider } = await providerWithClient();
    await ok('create-unit', '--provider', String(provider), '--code', 'K😀', '--name', 'Grin', '--whole-only', 'true');
    await ok('create-unit', '--provider', String(provider), '--code', 'K😁', '--name', 'Beam', '--whole-only', 'true');
    await ok('create-unit', '--provider', String(provider), '--code', 'KG', '--name', 'Kilogram', '--whole-only', 'false');
    expect(await codesOf('units', provider)).to.deep.equal(['K😀', 'K😁', 'KG']);
    await refused(
      ['create-unit', '--provider', String(provider), '--code', 'kg', '--name', 'Kilogram', '--whole-only', 'false'],
      `--code kg: provider ${provider} already has the unit KG (unit codes ignore the case of ASCII letters).`,
    );
    await refused(
      ['create-unit', '--provider', String(provider), '--code', 'k😁', '--name', 'Beam', '--whole-only', 'true'],
      `--code k😁: provider ${provider} already has the unit K😁 (unit codes ignore the case of ASCII letters).`,
    );
  });

  it('When a partner code differs only in the case of ASCII letters, Then it is refused, naming the partner code there; by an accent it is a partner of its own', async () => {
    const { client } = await providerWithClient();
    await ok('create-partner', '--client', String(client), '--type', 'supplier', '--name', 'Ferma', '--code', 'Ferma-Ș1');
    await refused(
      ['create-partner', '--client', String(client), '--type', 'supplier', '--name', 'Again', '--code', 'FERMA-Ș1'],
      `--code FERMA-Ș1: client ${client} already has the partner Ferma-Ș1 (partner codes ignore the case of ASCII letters).`,
    );
    await ok('create-partner', '--client', String(client), '--type', 'supplier', '--name', 'Ferma S', '--code', 'Ferma-S1');
    expect(await codesOf('partners', client)).to.deep.equal(['Ferma-Ș1', 'Ferma-S1']);
  });
});
