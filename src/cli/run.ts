/**
 * The operator CLI in-process: picks the command, parses its options, migrates the database
 * (unless the command reads only, or manages the schema itself), runs it, tells the running instances what it changed, and answers the exit code: 0 done, 2 a
 * mistake of the operator (one line on stderr saying what to fix), 1 anything else (one line, no
 * stack trace).
 */
import type { Knex } from 'knex';
import { ConfigError } from '../config.js';
import { failedMigrationOf, migrationSource } from '../../db/migrations/index.js';
import { isConnectionError, isSchemaMissing } from '../platform/db/driver-errors.js';
import { errorSerializer } from '../platform/logger.js';
import { parseOptions, UsageError } from './args.js';
import type { Out } from './command.js';
import type { AuthChange } from '../kernel/identity.js';
import { COMMANDS } from './commands/index.js';
import { commandHelp, helpText, USAGE } from './help.js';
import type { AnyCommand } from './command.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../platform/project-root.js';

export interface CliIo {
  readonly out: Out;
  readonly err: Out;
  /** The database to work on, opened when a command first needs it. */
  database(): Knex;
  /** Why the database cannot be opened without creating it (a SQLite file that does not exist), or undefined. */
  missingDatabase?(): string | undefined;
  /** Tells the running API instances what a command changed (main.ts: through Redis, when REDIS_URL is set). */
  announce?(changes: readonly AuthChange[]): Promise<void>;
}

function commandNamed(commands: readonly AnyCommand[], name: string): AnyCommand {
  const command = commands.find((c) => c.name === name);
  if (!command) throw new UsageError(`Unknown command "${name}"; \`npm run cli -- help\` lists the commands.`);
  return command;
}

function help(commands: readonly AnyCommand[], args: readonly string[], out: Out): void {
  if (args.length > 1) throw new UsageError('help takes at most one command name.');
  const lines = args[0] === undefined ? helpText(commands) : commandHelp(commandNamed(commands, args[0]));
  for (const line of lines) out(line);
}

/** `name version` of package.json (the project root holds it in a checkout and in a deployment alike). */
export function versionLine(): string {
  const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${pkg.name} ${pkg.version}`;
}

async function migrate(db: Knex, out: Out): Promise<void> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  if (applied.length > 0) out(`Migrated the database (${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}).`);
}

async function dispatch(argv: readonly string[], io: CliIo, commands: readonly AnyCommand[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined) throw new UsageError(`Name a command: ${USAGE} (\`npm run cli -- help\` lists them).`);
  if (name === 'help' || name === '--help' || name === '-h') return help(commands, args, io.out);
  if (name === '--version' || name === '-V' || name === 'version') return io.out(versionLine());
  const command = commandNamed(commands, name);
  if (args.includes('--help') || args.includes('-h')) return help(commands, [name], io.out);
  const options = parseOptions(command.name, command.options, args);
  command.check?.(options);
  // A command that neither migrates nor creates the database reads one that exists: a mistyped SQLite path must not make an empty one.
  const missing = command.migrateFirst === false && !command.createsDatabase ? io.missingDatabase?.() : undefined;
  if (missing !== undefined) throw new ConfigError(`${missing} ${command.name} reads a database and does not create one: check DATABASE_URL.`);
  const db = io.database();
  if (command.migrateFirst !== false) await migrate(db, io.out);
  const changes: AuthChange[] = [];
  await command.run(db, options, io.out, (change) => changes.push(change));
  if (changes.length > 0) await io.announce?.(changes);
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/** Knex's refusal to migrate while `knex_migrations_lock` is set (its LockError). */
const isMigrationLocked = (error: unknown): boolean => (error as { name?: unknown } | null)?.name === 'MigrationLocked';

/** The one line a failed command prints (process.ts drops knex's own lines of a failed migrate). */
function failureLine(error: unknown, message: string): string {
  if (isConnectionError(error)) return `The database cannot be reached: ${message}`;
  if (isMigrationLocked(error)) {
    return 'Failed: the migrations are locked (knex_migrations_lock): another migrate is running on this database, or one was cut short; if none is running, docs/deployment.md (Migrate) says what to do.';
  }
  const migration = failedMigrationOf(error);
  if (migration !== undefined) return `Failed in migration ${migration}: ${message}`;
  if (isSchemaMissing(error)) return `Failed: ${message} (a table is missing: if the database was never migrated, run the migrate command).`;
  return `Failed: ${message}`;
}

/**
 * Runs one command line (without the program name) and answers its exit code. `commands` are the
 * operator commands of src/cli; the process entry (bin/tpl.ts) adds seed-demo from db/seeds.
 */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly AnyCommand[] = COMMANDS): Promise<number> {
  try {
    await dispatch(argv, io, commands);
    return 0;
  } catch (error) {
    // A failed statement's error carries the statement and its values (a token's hash, a password's): only the driver's message is shown.
    const message = oneLine(error instanceof Error ? (errorSerializer(error) as { message: string }).message : String(error));
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(message);
      return 2;
    }
    io.err(failureLine(error, message));
    return 1;
  }
}
