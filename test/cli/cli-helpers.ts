/**
 * Running the operator CLI in tests: in-process on the run's database (`cli(...)`), or as the real
 * process on a database of its own (`spawnCli(url, ...)`), each answering its exit code and lines.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { runCli } from '../../src/cli/run.js';
import { createDb } from '../../src/platform/db/database.js';
import { projectRoot } from '../../src/platform/project-root.js';
import { createScratchDatabase } from '../helpers/database.js';
import { runDatabase } from '../helpers/harness.js';
import { testEnv } from '../helpers/test-env.js';

export interface CliResult {
  code: number;
  out: string[];
  err: string[];
}

/** The CLI in-process on `db` (the run's database by default). */
export async function cli(...argv: string[]): Promise<CliResult> {
  return cliOn((await runDatabase()).db, argv);
}

export async function cliOn(db: Knex, argv: readonly string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), database: () => db });
  return { code, out, err };
}

/** Expects success and answers the output; fails with the error line otherwise. */
export async function ok(...argv: string[]): Promise<string[]> {
  const result = await cli(...argv);
  expect(result.err, `${argv.join(' ')}: ${result.err.join(' ')}`).to.deep.equal([]);
  expect(result.code).to.equal(0);
  return result.out;
}

/** Expects exit code 2 with this one line on stderr, and nothing on stdout. */
export async function refused(argv: readonly string[], message: string | RegExp): Promise<void> {
  const result = await cli(...argv);
  expect(result.code, `${argv.join(' ')} answered ${result.code}: ${[...result.out, ...result.err].join(' / ')}`).to.equal(2);
  expect(result.out).to.deep.equal([]);
  expect(result.err).to.have.length(1);
  if (typeof message === 'string') expect(result.err[0]).to.equal(message);
  else expect(result.err[0]).to.match(message);
}

/** The number after `what` in the line: idAfter('Created client company 7 …', 'company') is 7. */
export function idAfter(line: string | undefined, what: string): number {
  const match = new RegExp(`${what} (\\d+)`).exec(line ?? '');
  expect(match, `"${what} <id>" in "${line}"`).to.not.equal(null);
  return Number(match![1]);
}

/** The real CLI process (`node --import tsx bin/tpl.ts …`) on DATABASE_URL=url. */
export function spawnCli(url: string, ...argv: string[]): Promise<CliResult> {
  return spawnCliWith({}, url, ...argv);
}

/** spawnCli with more environment variables (REDIS_URL, …). */
export function spawnCliWith(env: Record<string, string>, url: string, ...argv: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/tpl.ts', ...argv], {
      cwd: projectRoot,
      env: { ...process.env, ...env, DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = (text: string) => text.split('\n').filter((l) => l !== '');
      resolve({ code: code ?? -1, out: lines(stdout), err: lines(stderr) });
    });
  });
}

export interface EmptyDatabase {
  url: string;
  db: Knex;
  close(): Promise<void>;
}

/** An empty, unmigrated database of the run's engine that a spawned CLI can open too. */
export async function emptyDatabase(): Promise<EmptyDatabase> {
  if (testEnv.engine === 'mysql') return createScratchDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), 'tpl-cli-'));
  const url = `sqlite:${path.join(dir, 'cli.sqlite')}`;
  const db = createDb(url);
  return {
    url,
    db,
    async close() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
