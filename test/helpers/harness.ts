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
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AppDeps } from '../../src/platform/app-deps.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const TEST_APP_URL = 'http://api.test';
export const ETSM_TEST_TOKEN = 'etsm-shared-test-token';
export const MDM_TEST_TOKEN = 'mdm-shared-test-token';

export interface Harness {
  readonly app: Express;
  readonly contract: App['contract'];
  readonly db: Knex;
  readonly deps: AppDeps;
}

let database: TestDatabase | undefined;
let shared: Promise<Harness> | undefined;

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    APP_ENV: 'test',
    APP_URL: TEST_APP_URL,
    DATABASE_URL: database?.url ?? 'sqlite::memory:',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
    RATE_LIMIT_DATA_PER_MINUTE: '1000000',
    STORAGE_PATH: mkdtempSync(path.join(tmpdir(), 'tpl-storage-')),
    ETSM_TOKEN: ETSM_TEST_TOKEN,
    MDM_TOKEN: MDM_TEST_TOKEN,
    // Webhook receivers of the tests listen on 127.0.0.1 over http.
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
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
  database ??= await createTestDatabase();
  return database;
}

/** The app most suites share. */
export function harness(): Promise<Harness> {
  shared ??= buildApp();
  return shared;
}

/** The run's database if a test has created it (the root hooks check it after each test). */
export function currentDatabase(): Knex | undefined {
  return database?.db;
}

export async function closeHarness(): Promise<void> {
  await database?.close();
  database = undefined;
  shared = undefined;
}
