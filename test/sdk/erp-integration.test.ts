/**
 * Done when: a typed client generated from the served /openapi.json (openapi-typescript +
 * openapi-fetch) compiles an ERP integration with no casts under the project's strict options,
 * and that integration runs against the real server: token, articles, sync to the end, purchase
 * order, reception, stock, sales order to delivered, return, webhook subscription, a 422 and a 404.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { openapiFetchClient } from './clients/openapi-fetch.js';
import { castsIn, generateTypes, serve, tempDir, typecheck, type GeneratedTypes, type Served } from './generate.js';
import { expectErpIntegration } from './outcome.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const scenarioFile = path.join(here, 'scenario.ts');
const adapterFile = path.join(here, 'clients', 'openapi-fetch.ts');
const committedTypes = path.resolve(here, '../../src/generated/openapi.generated.ts');
const readme = path.resolve(here, '../../README.md');

/** The TypeScript block of the README's "Generate a client" section. */
function readmeClientExample(): string {
  const section = readFileSync(readme, 'utf8').split(/^## Generate a client$/m)[1]?.split(/^## /m)[0] ?? '';
  return /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
}

describe('Generated SDK: an ERP integration through openapi-typescript and openapi-fetch', () => {
  let served: Served;
  let world: World;
  let types: GeneratedTypes;

  before(async () => {
    served = await serve();
    world = await createWorld(served.h.app, served.h.db);
    types = await generateTypes(served.baseUrl);
  });

  after(async () => {
    await served?.close();
  });

  it('When openapi-typescript generates from the served /openapi.json, Then it warns about nothing and types every path of the document', () => {
    expect(types.output).to.deep.equal([]);
    const source = readFileSync(types.file, 'utf8');
    expect(source).to.match(/^export interface paths \{/m);
    const missing = Object.keys(types.document.paths ?? {}).filter((p) => !source.includes(`    ${JSON.stringify(p)}: {`));
    expect(missing).to.deep.equal([]);
  });

  it('When the scenario and its openapi-fetch client are typechecked against the generated types with the project options, Then they compile with no diagnostic and no cast', () => {
    const check = typecheck(adapterFile, { from: path.join(here, 'paths.ts'), specifier: '../../src/generated/openapi.generated.js', to: types.file });
    expect(check.diagnostics).to.deep.equal([]);
    expect(check.files).to.include.members([types.file, scenarioFile]);
    expect(check.files, 'the committed types stay out of this program').not.to.include(committedTypes);
    expect(castsIn(scenarioFile)).to.deep.equal([]);
    expect(castsIn(adapterFile)).to.deep.equal([]);
  });

  it('When the README\'s client example is typechecked against the generated types, Then it compiles in under 10 lines of code', async () => {
    const example = readmeClientExample();
    const code = example.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));
    expect(code.length).to.be.greaterThan(3).and.at.most(10);
    const dir = await tempDir('tpl-sdk-readme-');
    const file = path.join(dir, 'example.ts');
    // A vendor's ESM project with openapi-fetch installed: the project's node_modules.
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(path.resolve(here, '../../node_modules'), path.join(dir, 'node_modules'), 'dir');
    writeFileSync(file, example);
    const check = typecheck(file, { from: file, specifier: './api.js', to: types.file });
    expect(check.diagnostics).to.deep.equal([]);
  });

  it('When the ERP runs the integration through the client against the server, Then every step answers what the contract promises', async () => {
    await expectErpIntegration(openapiFetchClient, served.baseUrl, world, served.h.db);
  });
});
