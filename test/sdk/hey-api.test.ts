/**
 * Done when: @hey-api/openapi-ts generates types and an SDK from the served /openapi.json without
 * an error or a warning, the output compiles under the project's strict options with every type
 * named as in the document, and the generated SDK logs in and reads stock from the server.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import { expect } from 'chai';
import { createWorld, TEST_PASSWORD, type World } from '../helpers/factories.js';
import { captureConsole, serve, tempDir, typecheck, type Served } from './generate.js';

const tsconfig = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../tsconfig.json');

/** A vendor's first call through the generated SDK; typechecked with the output, then run. */
const SMOKE = `import { createClient, createConfig } from './client/index.js';
import { createToken, listStock } from './sdk.gen.js';

export async function smoke(baseUrl: string, email: string, password: string, companyId: number): Promise<{ email: string; rows: number }> {
  const anonymous = createClient(createConfig({ baseUrl }));
  const token = await createToken({ client: anonymous, body: { email, password }, throwOnError: true });
  const api = createClient(createConfig({ baseUrl, auth: token.data.token }));
  const stock = await listStock({ client: api, headers: { 'X-Company-Id': String(companyId) }, query: { per_page: 5 }, throwOnError: true });
  return { email: token.data.user.email, rows: stock.data.data.length };
}
`;

type Smoke = (baseUrl: string, email: string, password: string, companyId: number) => Promise<{ email: string; rows: number }>;

describe('Generated SDK: @hey-api/openapi-ts', () => {
  let served: Served;
  let world: World;
  let out: string;
  let output: string[];

  before(async () => {
    served = await serve();
    world = await createWorld(served.h.app, served.h.db);
    out = await tempDir('tpl-sdk-hey-api-');
    // The served document by URL, as a vendor runs it; logs to the console only (no log files).
    ({ output } = await captureConsole(() =>
      createClient({
        input: `${served.baseUrl}/openapi.json`,
        output: { path: out, tsConfigPath: tsconfig },
        plugins: ['@hey-api/typescript', '@hey-api/sdk'],
        logs: { file: false, level: 'warn' },
      }),
    ));
    // A vendor's ESM project.
    writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(path.join(out, 'smoke.ts'), SMOKE);
  });

  after(async () => {
    await served?.close();
  });

  it('When it generates from the served /openapi.json, Then it logs no warning and no error', () => {
    // Its progress lines ("Generating from 1 input", "Done!") go to console.log; anything else counts.
    const complaints = output.filter((line) => !line.startsWith('log: ') || /warn|error|fail|⚠|❌|skipp/i.test(line));
    expect(output.some((line) => line.includes('Done!')), output.join('\n')).to.equal(true);
    expect(complaints).to.deep.equal([]);
    expect(readdirSync(out)).to.include.members(['index.ts', 'types.gen.ts', 'sdk.gen.ts', 'client.gen.ts']);
  });

  it('When the output is typechecked with the project options, Then it compiles with no diagnostic', () => {
    const check = typecheck(path.join(out, 'smoke.ts'));
    expect(check.diagnostics).to.deep.equal([]);
    expect(check.files).to.include.members([path.join(out, 'sdk.gen.ts'), path.join(out, 'types.gen.ts')]);
  });

  it('When the types are read, Then every schema and parameter keeps its name from the document (no numbered duplicates)', () => {
    const names = [...readFileSync(path.join(out, 'types.gen.ts'), 'utf8').matchAll(/^export type (\w+)/gm)].map((m) => m[1]);
    const exported = new Set(names);
    const renamed = names.filter((name) => {
      const base = name?.replace(/\d+$/, '');
      return base !== name && base !== undefined && exported.has(base);
    });
    expect(renamed, 'types renamed to avoid a clash of names in the document').to.deep.equal([]);
  });

  it('When the generated SDK logs in and lists stock, Then it talks to the server', async () => {
    const { smoke }: { smoke: Smoke } = await import(pathToFileURL(path.join(out, 'smoke.ts')).href);
    const result = await smoke(served.baseUrl, world.users.operator.email, TEST_PASSWORD, world.client.id);
    expect(result).to.deep.equal({ email: world.users.operator.email, rows: 0 });
  });
});
