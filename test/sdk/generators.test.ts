/**
 * Done when: oazapfts, orval (fetch client, typed headers) and swagger-typescript-api each
 * generate a client from the served /openapi.json into a temporary folder, the client and the ERP
 * scenario's adapter to it (test/sdk/clients/) compile under the project's strict options with no
 * cast, and the scenario runs through the client against the server with the same results as
 * openapi-fetch's: zero hand fixes to generated code, only the base URL and the token given.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { castsIn, serve, tempDir, typecheck, type Served } from './generate.js';
import { GENERATORS, type GeneratorRun } from './generators.js';
import { expectErpIntegration } from './outcome.js';
import type { ErpClientFactory } from './scenario.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('Generated SDKs: oazapfts, orval and swagger-typescript-api run the ERP integration', () => {
  let served: Served;
  let dir: string;

  before(async () => {
    served = await serve();
    // A vendor's ESM project with the generators' runtimes installed: the project's node_modules.
    dir = await tempDir('tpl-sdk-generators-');
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });

  after(async () => {
    await served?.close();
  });

  for (const generator of GENERATORS) {
    describe(generator.name, () => {
      let run: GeneratorRun;
      let world: World;

      before(async function () {
        this.timeout(120_000);
        run = await generator.run(`${served.baseUrl}/openapi.json`, dir);
        world = await createWorld(served.h.app, served.h.db);
      });

      it('When it generates from the served /openapi.json, Then it writes the client and reports no warning or error', () => {
        const complaints = run.output.filter((line) => /warn|error|fail|invalid|skipp|⚠|❌/i.test(line));
        expect(complaints).to.deep.equal([]);
      });

      it('When the generated client and the adapter are compiled with tsc under the project options (strict), Then there is no diagnostic, and no cast in the adapter', function () {
        this.timeout(120_000);
        // swagger-typescript-api starts its output with `// @ts-nocheck`, which would hide its own
        // errors: the check reads a copy without that line (what runs is the file as generated).
        const source = readFileSync(run.file, 'utf8');
        const checked = source.includes('// @ts-nocheck') ? run.file.replace(/\.ts$/, '.checked.ts') : run.file;
        if (checked !== run.file) writeFileSync(checked, source.replace(/^\/\/ @ts-nocheck$/m, ''));
        const check = typecheck(generator.adapter, { from: generator.adapter, specifier: generator.specifier, to: checked });
        expect(check.diagnostics).to.deep.equal([]);
        expect(check.files).to.include(checked);
        expect(castsIn(generator.adapter)).to.deep.equal([]);
      });

      it('When the ERP runs the integration through the generated client against the server, Then every step answers what the contract promises', async () => {
        const generated: unknown = await import(pathToFileURL(run.file).href);
        const adapter: Record<string, (module: unknown) => ErpClientFactory> = await import(pathToFileURL(generator.adapter).href);
        const factory = adapter[generator.factory]!(generated);
        await expectErpIntegration(factory, served.baseUrl, world, served.h.db);
      });
    });
  }
});
