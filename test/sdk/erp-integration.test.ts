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
import { createWorld, TEST_PASSWORD, unique, type World } from '../helpers/factories.js';
import { castsIn, generateTypes, serve, tempDir, typecheck, type GeneratedTypes, type Served } from './generate.js';
import { runErpIntegration, type ErpOutcome } from './scenario.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const scenarioFile = path.join(here, 'scenario.ts');
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

  it('When the scenario is typechecked against the generated types with the project options, Then it compiles with no diagnostic and no cast', () => {
    const check = typecheck(scenarioFile, { from: scenarioFile, specifier: './paths.js', to: types.file });
    expect(check.diagnostics).to.deep.equal([]);
    expect(check.files).to.include(types.file);
    expect(check.files, 'the committed types stay out of this program').not.to.include(committedTypes);
    expect(castsIn(scenarioFile)).to.deep.equal([]);
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
    const tag = unique().toUpperCase();
    const outcome: ErpOutcome = await runErpIntegration({
      baseUrl: served.baseUrl,
      password: TEST_PASSWORD,
      operatorEmail: world.users.operator.email,
      adminEmail: world.users.admin.email,
      companyId: world.client.id,
      supplierId: world.partners.supplier,
      customerId: world.partners.client,
      warehouseId: world.warehouses[0]!,
      tag,
    });
    const [jar, can, box] = ['JAR', 'CAN', 'BOX'].map((kind) => `ERP-${kind}-${tag}`);

    expect(outcome.tokenEmail).to.equal(world.users.operator.email);
    expect(outcome.articles).to.deep.include({ codes: [jar, can, box], replayed: 'true', replayedSameId: true });
    expect(outcome.articles.patched).to.include({ article_code: jar, name: 'Tomato paste 400 g', barcode: '5941234567890', um3pl_barcode: '5941234567890', active: true });

    expect(outcome.sync).to.deep.equal({ pages: 2, codes: [world.articles.client.code, jar, can, box], inactiveCodes: [box] });

    expect(outcome.purchaseOrder).to.deep.equal({ created: 'open', afterReception: 'received', received: 10 });
    expect(outcome.stock).to.deep.equal({
      afterReception: { quantity: 10, reserved: 0, available: 10, backordered: 0 },
      afterOrder: { quantity: 10, reserved: 6, available: 4, backordered: 0 },
      afterDelivery: { quantity: 4, reserved: 0, available: 4, backordered: 0 },
      afterReturn: { quantity: 5, reserved: 0, available: 5, backordered: 0 },
      defectAfterReturn: { quantity: 2, reserved: 0, available: 2, backordered: 0 },
    });
    expect(outcome.salesOrder).to.deep.equal({ statuses: ['new', 'picking', 'picked', 'delivered'], history: ['new', 'picking', 'picked', 'delivered'] });
    expect(outcome.returned).to.deep.equal({ lines: 2, stockTypes: ['STOC_DEFECT', 'STOC_OK'] });

    expect(outcome.webhook).to.deep.equal({ events: ['sales_order.status_changed', 'stock.changed'], active: true, secretIsWhsec: true, listed: true });

    expect(outcome.duplicate).to.deep.equal({
      status: 422,
      message: 'The article_code has already been taken for this client.',
      articleCode: ['The article_code has already been taken for this client.'],
    });
    expect(outcome.notFound).to.deep.equal({ status: 404, message: `Article NO-SUCH-${tag} was not found.` });

    const movements = await served.h.db('stock_movements').where({ company_id: world.client.id }).orderBy('id').select('delta', 'cause', 'stock_type');
    expect(movements.map((m) => [Number(m.delta), m.cause, m.stock_type])).to.deep.equal([
      [10000, 'reception', 'STOC_OK'],
      [-6000, 'delivery', 'STOC_OK'],
      [2000, 'return', 'STOC_DEFECT'],
      [1000, 'return', 'STOC_OK'],
    ]);
  });
});
