/**
 * Production without dev dependencies (`npm ci --omit=dev`, then the build): the server, the
 * worker, migrations and the operator CLI run from compiled code.
 *
 * A real `npm ci --omit=dev` into a copy takes minutes (it compiles better-sqlite3) and needs the
 * registry, so this builds the project into a temporary folder beside a node_modules that holds
 * only the packages `npm ci --omit=dev` would install (those of package-lock.json not marked
 * `dev`, linked from this checkout's node_modules), with package.json, the bundled document and
 * the guide, as a deployment has them. Node resolves our compiled code's imports from that folder
 * only, so an import of a dev dependency fails there as it would in production. Two checks:
 * every import of every compiled file names a Node built-in or a production dependency, and one
 * real run of each entry point (CLI, server, worker) without tsx.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../src/platform/project-root.js';
import { closedPort, until } from './helpers/net.js';
import { emptyDatabase, type EmptyDatabase } from './cli/cli-helpers.js';

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as PackageJson;

/** The packages `npm ci --omit=dev` installs at the top of node_modules: the lockfile's entries not marked dev. */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([key, entry]) => key.startsWith('node_modules/') && !key.slice('node_modules/'.length).includes('/node_modules/') && !entry.dev)
    .map(([key]) => key.slice('node_modules/'.length));
}

/** A deployment: the build, package.json, the document, the guide, and the production packages. */
function deployment(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tpl-production-'));
  const built = spawnSync(path.join(projectRoot, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(dir, 'dist')], { cwd: projectRoot, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`the build failed: ${built.stdout}${built.stderr}`);
  cpSync(path.join(projectRoot, 'package.json'), path.join(dir, 'package.json'));
  cpSync(path.join(projectRoot, 'openapi/openapi.json'), path.join(dir, 'openapi/openapi.json'), { recursive: true });
  cpSync(path.join(projectRoot, 'docs'), path.join(dir, 'docs'), { recursive: true });
  for (const name of productionPackages()) {
    mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(path.join(projectRoot, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir');
  }
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : entry.name.endsWith('.js') ? [path.join(dir, entry.name)] : [],
  );
}

const IMPORT = /(?:^|[\n;])\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The packages a compiled file imports (bare specifiers, without Node's built-ins). */
function importedPackages(file: string): string[] {
  const names: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2] ?? match[3]!;
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) continue;
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
    if (!builtinModules.includes(name)) names.push(name);
  }
  return names;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('Production build without dev dependencies', function () {
  this.timeout(300_000);
  let dir: string;
  let database: EmptyDatabase;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    dir = deployment();
    database = await emptyDatabase();
    // No NODE_OPTIONS (no tsx), nothing of the test's own environment but PATH.
    env = { PATH: process.env.PATH, DATABASE_URL: database.url, LOG_LEVEL: 'info' };
  });

  after(async () => {
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const node = (args: string[], extra: NodeJS.ProcessEnv = {}): Run => {
    const result = spawnSync(process.execPath, args, { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8', timeout: 120_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('When every compiled file is read, Then each imports only Node built-ins and production dependencies, none of the devDependencies (tsx among them)', () => {
    const files = filesUnder(path.join(dir, 'dist'));
    expect(files.length).to.be.greaterThan(100);
    const problems = files.flatMap((file) =>
      importedPackages(file)
        .filter((name) => !(name in pkg.dependencies))
        .map((name) => `${path.relative(dir, file)} imports ${name}${name in pkg.devDependencies ? ' (a devDependency)' : ' (not a dependency)'}`),
    );
    expect(problems).to.deep.equal([]);
    expect(Object.keys(pkg.devDependencies)).to.include('tsx');
  });

  it('When the compiled CLI runs, Then --version, --help, migrate, seed-demo and a list run without dev dependencies', () => {
    expect(node(['dist/bin/tpl.js', '--version'])).to.deep.include({ code: 0, stderr: '' });
    expect(node(['dist/bin/tpl.js', '--help']).code).to.equal(0);
    const migrated = node(['dist/bin/tpl.js', 'migrate']);
    expect(migrated, migrated.stderr).to.deep.include({ code: 0, stderr: '' });
    expect(migrated.stdout).to.match(/^Migrated the database \(\d+ migrations: 001_platform/);
    const seeded = node(['dist/bin/tpl.js', 'seed-demo']);
    expect(seeded, seeded.stderr).to.deep.include({ code: 0, stderr: '' });
    expect(seeded.stdout).to.include('ops@demo.test');
    const companies = JSON.parse(node(['dist/bin/tpl.js', 'list-companies', '--json']).stdout) as Array<{ name: string }>;
    expect(companies.map((c) => c.name)).to.deep.equal(['Demo Logistics', 'Acme Foods', 'Globex Retail']);
  });

  it('When the compiled server runs, Then it is ready, serves the reference, metrics and a login, and stops cleanly on SIGTERM', async () => {
    const port = await closedPort();
    const server = spawn(process.execPath, ['dist/src/main.js'], { cwd: dir, env: { ...env, PORT: String(port), HOST: '127.0.0.1', WORKER: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(server);
    try {
      const base = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 60_000, `the server to be ready (${output()})`, 250);
      expect((await fetch(`${base}/docs`)).status).to.equal(200);
      expect((await fetch(`${base}/metrics`)).status).to.equal(200);
      const login = await fetch(`${base}/api/auth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'ops@demo.test', password: 'demo-password' }) });
      const { token } = (await login.json()) as { token: string };
      const stock = await fetch(`${base}/api/stock`, { headers: { Authorization: `Bearer ${token}`, 'X-Company-Id': '2' } });
      expect(stock.status).to.equal(200);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited(server)).to.equal(0);
    for (const line of output().split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line), `a plain-text line: ${line}`).to.not.throw();
    // The start line names the address it listens on (HOST), not localhost.
    const started = output().split('\n').filter((l) => l.includes('"listening on')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(started.map((l) => [l.host, l.port, String(l.msg).split(' (')[0]])).to.deep.equal([['127.0.0.1', port, `listening on 127.0.0.1:${port}`]]);
  });

  it('When the compiled worker runs, Then it starts and stops cleanly on SIGTERM; then rollback --force refuses while heartbeats are fresh, then while the demo has stock kept per lot, and undoes a schema without any', async () => {
    const worker = spawn(process.execPath, ['dist/src/worker.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(worker);
    try {
      await until(() => output().includes('webhook worker started'), 60_000, `the worker to start (${output()})`, 100);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited(worker)).to.equal(0);
    // The server and worker above wrote their heartbeats a moment ago: as if still running.
    const running = node(['dist/bin/tpl.js', 'rollback', '--force']);
    expect(running.code).to.equal(2);
    expect(running.stderr).to.match(/rollback refused: a server or worker is running on this database \(heartbeats: .*webhook-worker \d+ s ago/);
    await database.db('heartbeats').update({ last_ping_at: '2026-01-01 00:00:00.000000' });
    const refused = node(['dist/bin/tpl.js', 'rollback', '--force']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('014_lots cannot be rolled back: 1 articles track lots or expiry dates');
    const fresh = await emptyDatabase();
    try {
      expect(node(['dist/bin/tpl.js', 'migrate'], { DATABASE_URL: fresh.url }).code).to.equal(0);
      expect(node(['dist/bin/tpl.js', 'rollback', '--force'], { DATABASE_URL: fresh.url })).to.deep.include({ code: 0, stderr: '' });
      expect(await fresh.db.schema.hasTable('articles')).to.equal(false);
    } finally {
      await fresh.close();
    }
  });
});

function collect(child: ChildProcess): () => string {
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
