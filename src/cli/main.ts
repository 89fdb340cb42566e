/**
 * The operator CLI, so a provider runs the service without demo data: companies, warehouses,
 * partners, units, users, memberships, modules, tokens, webhook deliveries.
 * Usage: npm run cli -- <command> [--option value ...]   (DATABASE_URL as for the server;
 * `npm run cli -- help` lists the commands). The work is in run.ts; this file is the process.
 */
import type { Knex } from 'knex';
import { loadConfig } from '../config.js';
import { createDb } from '../platform/db/database.js';
import { runCli } from './run.js';

// A closed pipe (`npm run cli -- help | head`) ends the output, not the process with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/**
 * Knex prints a failed connection with its stack; run.ts already says it in one line, so knex's
 * own warning of it is dropped and its other messages go to stderr.
 */
const knexLog = {
  warn: (message: unknown) => {
    if (!String(message).startsWith('Acquire connection error')) process.stderr.write(`${String(message)}\n`);
  },
  error: (message: unknown) => process.stderr.write(`${String(message)}\n`),
  deprecate: (message: unknown) => process.stderr.write(`${String(message)}\n`),
  debug: () => undefined,
};

let db: Knex | undefined;
const code = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  database: () => (db ??= createDb(loadConfig().databaseUrl, { poolMax: 2, log: knexLog })),
});
await db?.destroy();
process.exitCode = code;
