/**
 * What the SDK tests share: the app on a real port, the document it serves at /openapi.json,
 * openapi-typescript's types generated from that document into a temporary folder (nothing is
 * written inside the repository), console capture for generators that warn on the console, and a
 * strict typecheck of a module against the generated types.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { buildApp, testConfig, type Harness } from '../helpers/harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Served {
  readonly h: Harness;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

/**
 * The app on the run's database, listening on a free port of 127.0.0.1, with that address as its
 * public address (APP_URL): the document it serves names it in `servers`, as a deployed one does.
 */
export async function serve(): Promise<Served> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1').once('listening', resolve).once('error', reject));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h = await buildApp({ config: testConfig({ APP_URL: baseUrl }) });
  server.on('request', h.app);
  return {
    h,
    baseUrl,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function isDocument(value: unknown): value is OpenAPI3 {
  return typeof value === 'object' && value !== null && 'openapi' in value && 'paths' in value && typeof value.openapi === 'string';
}

/** The document the server serves, as a vendor would download it. */
export async function fetchDocument(baseUrl: string): Promise<OpenAPI3> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const body: unknown = await res.json();
  if (!isDocument(body)) throw new Error('GET /openapi.json did not answer an OpenAPI document');
  return body;
}

/** A fresh folder under the system's temporary folder. */
export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * Runs `fn` with console.log/info/warn/error/debug captured (not printed), and what is written to
 * stdout and stderr directly (a generator that kept its own reference to console.log writes
 * there); answers what was written.
 */
export async function captureConsole<T>(fn: () => Promise<T>): Promise<{ result: T; output: string[] }> {
  const output: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const saved = methods.map((m) => console[m]);
  for (const m of methods) console[m] = (...args: unknown[]) => void output.push(`${m}: ${format(...args)}`);
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write);
  streams.forEach((stream, i) => {
    stream.write = (chunk: string | Uint8Array) => {
      output.push(`${i === 0 ? 'stdout' : 'stderr'}: ${String(chunk).trimEnd()}`);
      return true;
    };
  });
  try {
    return { result: await fn(), output };
  } finally {
    methods.forEach((m, i) => (console[m] = saved[i]!));
    streams.forEach((stream, i) => (stream.write = writes[i]!));
  }
}

export interface GeneratedTypes {
  readonly document: OpenAPI3;
  /** The generated `api.d.ts` (exports `paths`, `components`, `operations`). */
  readonly file: string;
  /** What openapi-typescript wrote on the console (its warnings). */
  readonly output: string[];
}

/** `npx openapi-typescript <baseUrl>/openapi.json -o api.d.ts`, through the programmatic API. */
export async function generateTypes(baseUrl: string): Promise<GeneratedTypes> {
  const document = await fetchDocument(baseUrl);
  const { result: nodes, output } = await captureConsole(() => openapiTS(document));
  const file = path.join(await tempDir('tpl-sdk-types-'), 'api.d.ts');
  await writeFile(file, astToString(nodes));
  return { document, file, output };
}

/** The project's compiler options (tsconfig.json: strict, NodeNext, …), without emitting. */
export function projectCompilerOptions(): ts.CompilerOptions {
  const configFile = path.join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configFile);
  return { ...parsed.options, noEmit: true };
}

export interface Typecheck {
  /** Every diagnostic, formatted `file:line:col - message`. */
  readonly diagnostics: string[];
  /** The files the program read, absolute. */
  readonly files: string[];
}

/**
 * Typechecks `entry` (and what it imports) with the project's options; where `redirect.from`
 * imports `redirect.specifier`, the program reads `redirect.to` instead. That is how a module
 * written against the committed types (so that the project's `tsc --noEmit` checks it on a fresh
 * clone) is checked against types generated at test time.
 */
export function typecheck(
  entry: string,
  redirect?: { from: string; specifier: string; to: string },
  options: ts.CompilerOptions = projectCompilerOptions(),
): Typecheck {
  const host = ts.createCompilerHost(options);
  const cache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (f) => host.getCanonicalFileName(f), options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirectedReference, opts, containingSourceFile) =>
    literals.map((literal) => {
      if (redirect && path.resolve(containingFile) === path.resolve(redirect.from) && literal.text === redirect.specifier) {
        const extension = redirect.to.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts;
        return { resolvedModule: { resolvedFileName: redirect.to, extension, isExternalLibraryImport: false } };
      }
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, opts);
      return ts.resolveModuleName(literal.text, containingFile, opts, host, cache, redirectedReference, mode);
    });
  const program = ts.createProgram({ rootNames: [entry], options, host });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(root, d.file.fileName)}:${line + 1}:${character + 1} - ${message}`;
  });
  return { diagnostics, files: program.getSourceFiles().map((f) => path.resolve(f.fileName)) };
}

/** Type assertions (`as`, `<T>x`), non-null assertions (`x!`) and `any` in a source file, by line. */
export function castsIn(file: string): string[] {
  const source = ts.createSourceFile(file, ts.sys.readFile(file) ?? '', ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node) || node.kind === ts.SyntaxKind.AnyKeyword) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${path.basename(file)}:${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
