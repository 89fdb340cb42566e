/**
 * Typed options of the operator CLI: each command declares its options (`--name value`), and
 * parseOptions turns the arguments into checked values or one UsageError line saying what to fix.
 */
import { parseArgs } from 'node:util';
import { fastFormats } from 'ajv-formats/dist/formats.js';

/** A mistake of the operator: exit code 2 and this one line on stderr. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

interface Base {
  readonly help: string;
  readonly required?: boolean;
}

export type OptionSpec =
  | (Base & { readonly kind: 'id' })
  | (Base & { readonly kind: 'int'; readonly min: number; readonly max: number })
  | (Base & { readonly kind: 'text'; readonly max: number; readonly min?: number })
  | (Base & { readonly kind: 'email' })
  | (Base & { readonly kind: 'choice'; readonly values: readonly string[] })
  | (Base & { readonly kind: 'bool' })
  | { readonly kind: 'flag'; readonly help: string };

export type OptionsSpec = Readonly<Record<string, OptionSpec>>;

type ValueOf<S extends OptionSpec> = S extends { kind: 'id' | 'int' }
  ? number
  : S extends { kind: 'choice'; values: readonly (infer V)[] }
    ? V
    : S extends { kind: 'bool' | 'flag' }
      ? boolean
      : string;

/** The parsed options: required ones and flags always present, the others possibly undefined. */
export type OptionValues<Spec extends OptionsSpec> = {
  readonly [K in keyof Spec]: Spec[K] extends { kind: 'flag' } | { required: true } ? ValueOf<Spec[K]> : ValueOf<Spec[K]> | undefined;
};

/** `wholeOnly` is written `--whole-only`. */
export function flagOf(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** How an option is written in help: `--provider <id>`, `--type supplier|client`, `--all`. */
export function usageOf(key: string, spec: OptionSpec): string {
  const flag = flagOf(key);
  switch (spec.kind) {
    case 'flag':
      return flag;
    case 'choice':
      return `${flag} ${spec.values.join('|')}`;
    case 'bool':
      return `${flag} true|false`;
    case 'id':
      return `${flag} <id>`;
    case 'int':
      return `${flag} <${spec.min}-${spec.max}>`;
    case 'email':
      return `${flag} <email>`;
    case 'text':
      return `${flag} <text>`;
  }
}

/**
 * The API's email check (the document's `format: email` as the request validator applies it:
 * ajv-formats' fast pattern, express-openapi-validator's default), so the CLI never makes a user
 * whose login the API refuses (`josé@…` was created here and then could not log in), nor refuses
 * one the API logs in.
 */
const isEmail = fastFormats.email as RegExp;

function convert(flag: string, spec: Exclude<OptionSpec, { kind: 'flag' }>, raw: string): unknown {
  const value = raw.trim();
  switch (spec.kind) {
    case 'id':
      if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
        throw new UsageError(`${flag} must be a positive whole number, an id (got "${raw}").`);
      }
      return Number(value);
    case 'int':
      if (!/^\d+$/.test(value) || Number(value) < spec.min || Number(value) > spec.max) {
        throw new UsageError(`${flag} must be a whole number from ${spec.min} to ${spec.max} (got "${raw}").`);
      }
      return Number(value);
    case 'choice':
      if (!spec.values.includes(value)) throw new UsageError(`${flag} must be one of ${spec.values.join(', ')} (got "${raw}").`);
      return value;
    case 'bool':
      if (value !== 'true' && value !== 'false') throw new UsageError(`${flag} must be true or false (got "${raw}").`);
      return value === 'true';
    case 'email':
      if (!isEmail.test(value) || value.length > 255) throw new UsageError(`${flag} must be an email address (got "${raw}").`);
      return value.toLowerCase();
    case 'text':
      if (value.length < (spec.min ?? 1)) {
        throw new UsageError(spec.min ? `${flag} must be at least ${spec.min} characters long.` : `${flag} must not be empty.`);
      }
      if (value.length > spec.max) throw new UsageError(`${flag} must be at most ${spec.max} characters (got ${value.length}).`);
      return value;
  }
}

function expected(command: string, spec: OptionsSpec): string {
  const keys = Object.keys(spec);
  return keys.length === 0 ? `${command} takes no options` : `${command} takes ${keys.map(flagOf).join(', ')}`;
}

/** Parses `--name value` arguments against `spec`; every mistake is one UsageError line. */
export function parseOptions<Spec extends OptionsSpec>(command: string, spec: Spec, args: readonly string[]): OptionValues<Spec> {
  const byFlag = new Map(Object.keys(spec).map((key) => [flagOf(key).slice(2), key]));
  // Every option may come more than once as parseArgs reads them, so that twice is refused, not the last one taken.
  const options = Object.fromEntries(
    [...byFlag].map(([flag, key]) => [flag, { type: spec[key]!.kind === 'flag' ? ('boolean' as const) : ('string' as const), multiple: true }]),
  );
  let parsed: { values: Record<string, Array<string | boolean> | undefined> };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }) as typeof parsed;
  } catch (error) {
    throw new UsageError(parseProblem(command, spec, error, args));
  }
  const values: Record<string, unknown> = {};
  for (const [flag, key] of byFlag) {
    const option = spec[key]!;
    const given = parsed.values[flag];
    if (given !== undefined && given.length > 1) {
      const shown = option.kind === 'flag' ? '' : ` (${given.map((value) => `"${String(value)}"`).join(', ')})`;
      throw new UsageError(`Option --${flag} was given ${given.length} times${shown}; give it once.`);
    }
    const raw = given?.[0];
    if (option.kind === 'flag') {
      values[key] = raw === true;
    } else if (raw === undefined) {
      if (option.required) throw new UsageError(`${command} needs ${usageOf(key, option)} (${option.help}).`);
    } else {
      values[key] = convert(`--${flag}`, option, String(raw));
    }
  }
  return values as OptionValues<Spec>;
}

/**
 * The value after `flag` when it starts with a dash but is no option of the command (`--provider -1`):
 * parseArgs calls it ambiguous, and takes it for an option.
 */
function dashedValue(spec: OptionsSpec, args: readonly string[], flag: string): string | undefined {
  const next = args[args.indexOf(flag) + 1];
  if (next === undefined || !next.startsWith('-')) return undefined;
  const known = Object.keys(spec).map(flagOf);
  return known.includes(next.split('=')[0]!) ? undefined : next;
}

function parseProblem(command: string, spec: OptionsSpec, error: unknown, args: readonly string[]): string {
  const { code, message } = error as { code?: string; message?: string };
  const quoted = /'(-[^' ]*)/.exec(message ?? '')?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `Unknown option ${quoted} for ${command}; ${expected(command, spec)}.`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      if (/takes no argument|does not take an argument/.test(message ?? '')) return `Option ${quoted} takes no value.`;
      const dashed = /ambiguous/.test(message ?? '') ? dashedValue(spec, args, quoted) : undefined;
      if (dashed !== undefined) return `Option ${quoted} needs a value; "${dashed}" starts with a dash, so it reads as an option (write ${quoted}=${dashed} if it is the value).`;
      return `Option ${quoted} needs a value.`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const positional = /'([^']*)'/.exec(message ?? '')?.[1] ?? '';
      return `Unexpected argument "${positional}" for ${command}: options are written --name value.`;
    }
    default:
      return message ?? String(error);
  }
}
