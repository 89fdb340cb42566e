/**
 * The generators the SDK tests run, each as its vendor would run it on the served document (by
 * URL), with the options docs/sdk.md shows and nothing else, writing one module into `dir`.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSource } from 'oazapfts';
import { generate as orval } from 'orval';
import { generateApi } from 'swagger-typescript-api';
import { captureConsole } from './generate.js';

export interface GeneratorRun {
  /** The generated module. */
  readonly file: string;
  /** What the generator wrote on the console. */
  readonly output: string[];
}

export interface Generator {
  readonly name: string;
  /** The adapter of the scenario to its client (test/sdk/clients/<name>.ts) and the module it names. */
  readonly adapter: string;
  readonly specifier: string;
  /** The adapter's export that makes an ErpClientFactory of the generated module. */
  readonly factory: string;
  run(documentUrl: string, dir: string): Promise<GeneratorRun>;
}

const clients = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clients');

function generator(name: string, factory: string, write: (documentUrl: string, file: string) => Promise<void>): Generator {
  const specifier = `./${name}.generated.js`;
  return {
    name,
    adapter: path.join(clients, `${name}.ts`),
    specifier,
    factory,
    async run(documentUrl, dir) {
      const file = path.join(dir, `${name}.generated.ts`);
      const { output } = await captureConsole(() => write(documentUrl, file));
      return { file, output };
    },
  };
}

/** `npx oazapfts <url>/openapi.json api.ts` (defaults). */
export const oazapfts = generator('oazapfts', 'oazapftsClient', async (url, file) => writeFile(file, await generateSource(url)));

/** orval's fetch client with typed headers, its base URL from the document's `servers`. */
export const orvalFetch = generator('orval', 'orvalClient', (url, file) =>
  orval({
    input: { target: url },
    output: { target: file, mode: 'single', client: 'fetch', headers: true, baseUrl: { getBaseUrlFromSpecification: true } },
  }),
);

/** `npx swagger-typescript-api generate -p <url>/openapi.json --enum-style=union`. */
export const swaggerTypescriptApi = generator('swagger-typescript-api', 'swaggerTypescriptApiClient', async (url, file) => {
  await generateApi({ url, output: path.dirname(file), fileName: path.basename(file), enumStyle: 'union', silent: true });
});

export const GENERATORS: readonly Generator[] = [oazapfts, orvalFetch, swaggerTypescriptApi];
