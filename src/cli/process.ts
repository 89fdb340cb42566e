/**
 * The operator CLI as a process, so a provider runs the service without demo data: the schema
 * (migrate, rollback), companies, warehouses, partners, units, users, memberships, modules, tokens,
 * webhook deliveries. Its entry is bin/tpl.ts (which adds seed-demo from db/seeds):
 * `npm run cli -- <command>` from source, `node dist/bin/tpl.js <command>` built (DATABASE_URL as
 * for the server; `help` lists the commands). The work is in run.ts; this file is the process.
 */
import type { Knex } from 'knex';
import { loadConfig } from '../config.js';
import { createDb, sqliteFileOf } from '../platform/db/database.js';
import { existsSync } from 'node:fs';
import { runCli } from './run.js';
import type { AnyCommand } from './command.js';
import { COMMANDS } from './commands/index.js';
import type { AuthChange } from '../kernel/identity.js';
import { announceAuthChanges } from '../components/auth/auth.invalidation.js';

// A closed pipe (`npm run cli -- help | head`) ends the output, not the process with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/**
 * Knex's own warnings of what run.ts already says in its one line: a failed connection (with its
 * stack), and a failed migrate (the migration, then its error with the statement, or the lock and
 * a `knex migrate:unlock` this CLI does not have).
 */
const SAID_BY_THE_CLI = /^(Acquire connection error|migration file ".*" failed$|migration failed with error: |Can't take lock to run migrations: |If you are sure migrations are not running)/;

/** Knex's messages on stderr, but those run.ts says in its one line. */
const knexLog = {
  warn: (message: unknown) => {
    if (!SAID_BY_THE_CLI.test(String(message))) process.stderr.write(`${String(message)}\n`);
  },
  error: (message: unknown) => process.stderr.write(`${String(message)}\n`),
  deprecate: (message: unknown) => process.stderr.write(`${String(message)}\n`),
  debug: () => undefined,
};

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const err = (line: string): void => void process.stderr.write(`${line}\n`);

/**
 * With REDIS_URL set, a change that running instances may have cached (a token, a membership, a
 * module) is published to them, so that each forgets it at once; without it they see it within
 * their AUTH_CACHE_TTL_SECONDS. The change is saved either way; a publish no instance heard (no
 * instance runs, or they have another REDIS_PREFIX) is a warning.
 */
async function announce(changes: readonly AuthChange[]): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl) return;
  try {
    const received = await announceAuthChanges(config.redisUrl, config.redisPrefix, changes);
    if (received > 0) out(`Told ${received} running instance${received === 1 ? '' : 's'} (through Redis) to forget what they had cached of it.`);
    else
      err(
        `Warning: the change is saved, but no running instance listens on Redis with REDIS_PREFIX "${config.redisPrefix}": ` +
          `if instances run, set the REDIS_PREFIX they have; else they see it within their AUTH_CACHE_TTL_SECONDS.`,
      );
  } catch (error) {
    err(
      `Warning: the change is saved, but Redis (REDIS_URL) could not be reached to tell the running instances ` +
        `(${(error as Error).message}); they see it within their AUTH_CACHE_TTL_SECONDS.`,
    );
  }
}

/**
 * Runs the command line of this process with the operator commands and `extra` ones, and sets the
 * exit code. Statements have no time bound: a migration may alter a large table.
 */
export async function runCliProcess(extra: readonly AnyCommand[] = []): Promise<void> {
  let db: Knex | undefined;
  const code = await runCli(
    process.argv.slice(2),
    {
      out,
      err,
      database: () => (db ??= createDb(loadConfig().databaseUrl, { poolMax: 2, log: knexLog, statementTimeoutMs: 0 })),
      missingDatabase: () => {
        const file = sqliteFileOf(loadConfig().databaseUrl);
        return file !== undefined && !existsSync(file) ? `There is no SQLite database at ${file}.` : undefined;
      },
      announce,
    },
    [...COMMANDS, ...extra],
  );
  await db?.destroy();
  process.exitCode = code;
}
