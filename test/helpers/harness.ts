/**
 * The app under test: one per run, on the run's database (test/helpers/database.ts), built the
 * way main.ts builds it. Limits are raised by configuration so suites are not rate limited; the
 * rate-limit tests build their own app with low limits.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import type { Knex } from 'knex';
import { pino, type Logger } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppDeps } from '../../src/platform/app-deps.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { createScratchDatabase, createTestDatabase, type TestDatabase } from './database.js';
import { migrateLatest } from '../../db/migrations/index.js';

export const TEST_APP_URL = 'http://api.test';
export const ETSM_TEST_TOKEN = 'etsm-shared-test-token';
export const MDM_TEST_TOKEN = 'mdm-shared-test-token';

export interface Harness {
  readonly app: Express;
  readonly contract: App['contract'];
  readonly db: Knex;
  readonly deps: AppDeps;
}

/**
 * The run's database and shared app, kept on globalThis: mocha loads the root hooks with require,
 * and a spec file that imports an ESM-only package (openapi-typescript, @hey-api/openapi-ts) with
 * import(), which gives this module a second instance. Both must see the same database, or the
 * hooks neither check its ledger nor close it (and the run never exits).
 */
const state: { database?: TestDatabase; shared?: Promise<Harness> } = ((globalThis as Record<symbol, unknown>)[Symbol.for('tpl.test.harness')] ??= {}) as never;

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    APP_ENV: 'test',
    APP_URL: TEST_APP_URL,
    DATABASE_URL: state.database?.url ?? 'sqlite::memory:',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
    RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '1000000',
    RATE_LIMIT_DATA_PER_MINUTE: '1000000',
    RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '1000000',
    STORAGE_PATH: mkdtempSync(path.join(tmpdir(), 'tpl-storage-')),
    ETSM_TOKEN: ETSM_TEST_TOKEN,
    MDM_TOKEN: MDM_TEST_TOKEN,
    // Webhook receivers of the tests listen on 127.0.0.1 over http.
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Tests change memberships, modules and tokens in the database and expect the next request to
    // see it; test/api/auth-cache.test.ts turns the cache on.
    AUTH_CACHE_TTL_SECONDS: '0',
    ...overrides,
  });
}

/** An app on the run's database with its own configuration and dependencies. */
export async function buildApp(options: { config?: Config; deps?: Partial<AppDeps> } = {}): Promise<Harness> {
  const { db } = await runDatabase();
  const deps: AppDeps = {
    config: options.config ?? testConfig(),
    db,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(),
    ...options.deps,
  };
  const { express, contract } = await createApp(deps);
  return { app: express, contract, db: deps.db, deps };
}

export async function runDatabase(): Promise<TestDatabase> {
  state.database ??= await createTestDatabase();
  return state.database;
}

/** The app most suites share. */
export function harness(): Promise<Harness> {
  state.shared ??= buildApp();
  return state.shared;
}

export interface Isolated extends Harness {
  /** DATABASE_URL of this database (another process can open it; not so SQLite in memory). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * An app on a migrated database of its own (`file`: on SQLite in a temporary file), for suites whose data would change what others see (the fuzz
 * creates articles with ids up to 2147483647 and odd codes).
 */
export async function isolatedHarness(options: { file?: boolean; logger?: Logger } = {}): Promise<Isolated> {
  const scratch = await createScratchDatabase({ file: options.file });
  await migrateLatest(scratch.db);
  const h = await buildApp({ deps: { db: scratch.db, ...(options.logger ? { logger: options.logger } : {}) } });
  return { ...h, url: scratch.url, close: () => scratch.close() };
}

/** The run's database if a test has created it (the root hooks check it after each test). */
export function currentDatabase(): Knex | undefined {
  return state.database?.db;
}

export async function closeHarness(): Promise<void> {
  await state.database?.close();
  state.database = undefined;
  state.shared = undefined;
}
