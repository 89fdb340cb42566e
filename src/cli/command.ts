/**
 * What a CLI command is: a name, a one-line summary, its options, and run(db, options, out, changed),
 * which writes what it did through `out` (one line per call), records through `changed` what
 * running instances must forget, and throws UsageError for a mistake.
 */
import type { Knex } from 'knex';
import type { AuthChange } from '../kernel/identity.js';
import type { OptionsSpec, OptionValues } from './args.js';

/** Where a command writes its lines (stdout in the process, an array in tests). */
export type Out = (line: string) => void;

/**
 * Where a command records a change that running API instances have cached (a revoked token, a
 * membership, a module): the CLI tells them once the command is done (through Redis, when set).
 */
export type AuthChanged = (change: AuthChange) => void;

export interface Command<Spec extends OptionsSpec = OptionsSpec> {
  readonly name: string;
  readonly summary: string;
  readonly options: Spec;
  /**
   * false: the command runs on the database as it is (a read-only list, or migrate/rollback, which
   * manage the schema themselves); otherwise the CLI migrates the database first.
   */
  readonly migrateFirst?: boolean;
  /** true: the command may create the database (migrate); a command that does not migrate first otherwise needs an existing one. */
  readonly createsDatabase?: boolean;
  /** Checks across options that the spec cannot say (either --on or --off), before any database work. */
  readonly check?: (options: OptionValues<Spec>) => void;
  run(db: Knex, options: OptionValues<Spec>, out: Out, changed: AuthChanged): Promise<void>;
}

/** A command with its option types erased, as the dispatcher holds it. */
export interface AnyCommand {
  readonly name: string;
  readonly summary: string;
  readonly options: OptionsSpec;
  readonly migrateFirst?: boolean;
  readonly createsDatabase?: boolean;
  readonly check?: (options: Record<string, unknown>) => void;
  run(db: Knex, options: Record<string, unknown>, out: Out, changed: AuthChanged): Promise<void>;
}

/** Declares a command; `run` sees its options typed from the spec. */
export function defineCommand<const Spec extends OptionsSpec>(command: Command<Spec>): AnyCommand {
  return command as unknown as AnyCommand;
}
