/** Operator CLI: create-provider, create-client, list-companies. */
import { expect } from 'chai';
import { runDatabase } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { cli, idAfter, ok, refused } from './cli-helpers.js';

describe('CLI create-provider and create-client', () => {
  it('When a provider is created, Then it says so with its id and every module is on', async () => {
    const name = unique('Provider ');
    const [line] = await ok('create-provider', '--name', name, '--vat', 'RO123');
    const id = idAfter(line, 'provider company');
    expect(line).to.equal(`Created provider company ${id} '${name}' with every module on (api, articles, stock, inbound, outbound, returns, webhooks).`);
    const { db } = await runDatabase();
    expect(await db('companies').where('id', id).first()).to.include({ name, type: 'provider', provider_id: null, vat_code: 'RO123' });
    const modules = await db('company_modules').where('company_id', id);
    expect(modules.map((m) => [m.module, Boolean(m.active)])).to.have.deep.members(
      ['api', 'articles', 'stock', 'inbound', 'outbound', 'returns', 'webhooks'].map((m) => [m, true]),
    );
  });

  it('When a client is created for a provider, Then it belongs to that provider', async () => {
    const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
    const name = unique('Acme Foods ');
    const [line] = await ok('create-client', '--provider', String(provider), '--name', name);
    const id = idAfter(line, 'client company');
    expect(line).to.match(new RegExp(`^Created client company ${id} '${name}' of provider ${provider} with every module on`));
    const { db } = await runDatabase();
    expect(await db('companies').where('id', id).first()).to.include({ type: 'client', provider_id: provider, vat_code: null });
  });

  it('When the provider id is a client, unknown or not a number, Then it exits 2 saying what to pass', async () => {
    const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
    const clientName = unique('Client ');
    const client = idAfter((await ok('create-client', '--provider', String(provider), '--name', clientName))[0], 'client company');
    await refused(
      ['create-client', '--provider', String(client), '--name', 'X'],
      `--provider ${client}: company ${client} '${clientName}' is a client, not a provider; pass a provider id (\`list-companies\` lists them).`,
    );
    await refused(['create-client', '--provider', '999999', '--name', 'X'], '--provider 999999: there is no company 999999 (`list-companies` lists them).');
    await refused(['create-client', '--provider', 'abc', '--name', 'X'], '--provider must be a positive whole number, an id (got "abc").');
    await refused(['create-client', '--provider', '0', '--name', 'X'], '--provider must be a positive whole number, an id (got "0").');
  });

  it('When an option is missing, unknown, empty or too long, Then it exits 2 naming the option', async () => {
    await refused(['create-provider'], 'create-provider needs --name <text> (the company name).');
    await refused(['create-client', '--name', 'X'], 'create-client needs --provider <id> (the provider company id).');
    await refused(['create-provider', '--name', 'X', '--colour', 'red'], 'Unknown option --colour for create-provider; create-provider takes --name, --vat.');
    await refused(['create-provider', '--name'], 'Option --name needs a value.');
    await refused(['create-provider', '--name', '--vat', 'RO1'], 'Option --name needs a value.');
    await refused(['create-client', '--name', 'X', '--provider', '-1'], 'Option --provider needs a value; "-1" starts with a dash, so it reads as an option (write --provider=-1 if it is the value).');
    await refused(['create-client', '--name', 'X', '--provider=-1'], '--provider must be a positive whole number, an id (got "-1").');
    // Twice is refused, not the last one taken.
    await refused(['create-provider', '--name', 'A', '--name', 'B'], 'Option --name was given 2 times ("A", "B"); give it once.');
    await refused(['create-provider', '--name', '   '], '--name must not be empty.');
    await refused(['create-provider', '--name', 'x'.repeat(256)], '--name must be at most 255 characters (got 256).');
    await refused(['create-provider', 'Acme'], 'Unexpected argument "Acme" for create-provider: options are written --name value.');
  });

  it('When the same provider or client name is created twice, Then the second is refused', async () => {
    const name = unique('Twin ');
    const provider = idAfter((await ok('create-provider', '--name', name))[0], 'company');
    await refused(['create-provider', '--name', name.toUpperCase()], `--name: there is already a provider named '${name}' (company ${provider}).`);
    const client = idAfter((await ok('create-client', '--provider', String(provider), '--name', 'Shop'))[0], 'client company');
    await refused(['create-client', '--provider', String(provider), '--name', 'Shop'], `--name: there is already a client named 'Shop' (company ${client}).`);
  });
});

describe('CLI list-companies', () => {
  it('When companies exist, Then each provider is listed with its clients after it', async () => {
    const providerName = unique('Listed provider ');
    const provider = idAfter((await ok('create-provider', '--name', providerName, '--vat', 'RO777'))[0], 'company');
    const client = idAfter((await ok('create-client', '--provider', String(provider), '--name', 'Listed client', '--vat', 'RO778'))[0], 'client company');
    const lines = await ok('list-companies');
    expect(lines[0]).to.match(/^id\s+type\s+provider\s+name\s+vat$/);
    const at = lines.findIndex((l) => l.includes(providerName));
    expect(lines[at]).to.match(new RegExp(`^${provider}\\s+provider\\s+${providerName}\\s+RO777$`));
    expect(lines[at + 1]).to.match(new RegExp(`^${client}\\s+client\\s+${provider}\\s+Listed client\\s+RO778$`));
  });

  it('When it is given an unknown option, Then it exits 2 naming the one it takes', async () => {
    const result = await cli('list-companies', '--all');
    expect(result.code).to.equal(2);
    expect(result.err).to.deep.equal(['Unknown option --all for list-companies; list-companies takes --json.']);
  });

  it('When --json is given, Then stdout is one JSON array of the companies, providers followed by their clients', async () => {
    const providerName = unique('Json provider ');
    const provider = idAfter((await ok('create-provider', '--name', providerName))[0], 'company');
    const client = idAfter((await ok('create-client', '--provider', String(provider), '--name', 'Json client'))[0], 'client company');
    const lines = await ok('list-companies', '--json');
    expect(lines).to.have.length(1);
    const companies = JSON.parse(lines[0]!) as Array<{ id: number; type: string; provider_id: number | null; name: string; vat_code: string | null }>;
    const at = companies.findIndex((c) => c.id === provider);
    expect(companies.slice(at, at + 2)).to.deep.equal([
      { id: provider, type: 'provider', provider_id: null, name: providerName, vat_code: null },
      { id: client, type: 'client', provider_id: provider, name: 'Json client', vat_code: null },
    ]);
  });
});
