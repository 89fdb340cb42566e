/**
 * A migrated database per test run: SQLite in memory, or a database of its own on the MariaDB
 * server (tpl_test_<pid>), dropped at the end, so that runs never share state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createDb } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../db/migrations/index.js';
import { testEnv } from './test-env.js';

export interface TestDatabase {
  readonly db: Knex;
  readonly url: string;
  close(): Promise<void>;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function createMysqlDatabase(suffix = ''): Promise<TestDatabase> {
  const admin = createDb(testEnv.mysqlUrl, { poolMax: 1 });
  const name = `tpl_test_${process.pid}${suffix}`;
  try {
    await admin.raw('select 1');
  } catch (error) {
    await admin.destroy();
    throw new Error(`MariaDB is not reachable at ${testEnv.mysqlUrl}: ${(error as Error).message}`);
  }
  const [rows] = (await admin.raw(`show databases like 'tpl\\_test\\_%'`)) as [Array<Record<string, string>>];
  for (const row of rows) {
    const existing = Object.values(row)[0]!;
    const pid = Number(existing.replace('tpl_test_', '').split('_')[0]);
    if (existing === name || !isRunning(pid)) await admin.raw(`drop database if exists \`${existing}\``);
  }
  await admin.raw(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
  const url = new URL(testEnv.mysqlUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { poolMax: 20 });
  if (!suffix) await migrateLatest(db);
  return {
    db,
    url: url.toString(),
    async close() {
      await db.destroy();
      await admin.raw(`drop database if exists \`${name}\``);
      await admin.destroy();
    },
  };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (testEnv.engine === 'mysql') return createMysqlDatabase();
  const url = 'sqlite::memory:';
  const db = createDb(url);
  await migrateLatest(db);
  return { db, url, close: () => db.destroy() };
}

/** An empty database of the run's engine, for tests that migrate it themselves. */
let scratchCount = 0;

/**
 * An empty database of its own: on MariaDB a scratch database, on SQLite one in memory, or with
 * `file` one in a temporary file (which another process can open by its url).
 */
export async function createScratchDatabase(options: { file?: boolean } = {}): Promise<TestDatabase> {
  if (testEnv.engine === 'mysql') return createMysqlDatabase(`_scratch${++scratchCount}`);
  if (options.file) {
    const dir = mkdtempSync(path.join(tmpdir(), 'tpl-scratch-'));
    const url = `sqlite:${path.join(dir, 'db.sqlite')}`;
    const db = createDb(url);
    return { db, url, close: async () => (await db.destroy(), rmSync(dir, { recursive: true, force: true })) };
  }
  const db = createDb('sqlite::memory:');
  return { db, url: 'sqlite::memory:', close: () => db.destroy() };
}
