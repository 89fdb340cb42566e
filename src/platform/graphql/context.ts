/** What every resolver sees: the tenant context of the request and the modules active for it. */
import { GraphQLError } from 'graphql';
import type { ModuleSlug } from '../../kernel/access.js';
import type { TenantContext } from '../tenant-context.js';
import { InputError } from '../errors.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { inputTime } from '../input-time.js';

export interface GraphQLContext {
  readonly tenant: TenantContext;
  readonly activeModules: ReadonlySet<string>;
  /** The request's id (error log lines carry it). */
  readonly requestId?: string;
}

/** A field that needs a content module answers FORBIDDEN (HTTP 403) when the company has it off. */
export function requireModule(ctx: GraphQLContext, module: ModuleSlug): void {
  if (ctx.activeModules.has(module)) return;
  const company = ctx.tenant.scope.kind === 'company' ? ctx.tenant.scope.companyName : 'all companies';
  throw new GraphQLError(`The ${module} module is not active for company ${company}.`, {
    extensions: { code: 'FORBIDDEN', http: { status: 403 } },
  });
}

/**
 * A page size argument: 1 to `max`, `fallback` when absent; else BAD_USER_INPUT, with the problem
 * under `extensions.errors.limit` as REST keys its own (`errors.per_page`).
 */
export function pageLimit(limit: number | null | undefined, fallback: number, max: number): number {
  const value = limit ?? fallback;
  if (value < 1 || value > max) throw InputError.field('limit', `The limit argument must be from 1 to ${max}.`);
  return value;
}

/** An id argument as REST takes one (a path or query id): at least 1, else BAD_USER_INPUT on it. */
export function idArg(value: number, name: string): number;
export function idArg(value: number | null | undefined, name: string): number | undefined;
export function idArg(value: number | null | undefined, name: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < 1) throw InputError.field(name, `The ${name} argument must be at least 1.`);
  return value;
}

/**
 * `after`, the keyset of a list: the last id seen, or 0 (or none) for the first page; below 0 is
 * BAD_USER_INPUT on it (an off-by-one of a client's cursor must not restart its sync silently).
 */
export function afterArg(value: number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < 0) throw InputError.field('after', 'The after argument must be the last id seen, or 0 for the first page.');
  return value;
}

/**
 * A text argument as REST takes the query parameter of the same name: not empty (leave it out
 * instead, unless it is `required`), at most `max` characters (that parameter's maxLength in the document:
 * queryParameterMaxLength); else BAD_USER_INPUT on it. `search=""` answered every row.
 */
export function textArg(value: string, name: string, max: number, required: true): string;
export function textArg(value: string | null | undefined, name: string, max: number): string | undefined;
export function textArg(value: string | null | undefined, name: string, max: number, required = false): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value === '') throw InputError.field(name, `The ${name} argument must not be empty${required ? '' : '; leave it out instead'}.`);
  if ([...value].length > max) throw InputError.field(name, `The ${name} argument must not be longer than ${max} characters.`);
  return value;
}

/** A `search` argument as REST takes `search` (its `pattern: '\S'`): only whitespace, which would match everything, is refused as empty is. */
export function searchArg(value: string | null | undefined, max: number): string | undefined {
  return textArg(value?.trim() === '' ? '' : value, 'search', max);
}

/** ajv-formats' full `date` check: the shape and a day that exists (its type is any format's). */
const isCalendarDate = (fullFormats.date as { validate: (value: string) => boolean }).validate;

/**
 * A date argument as REST takes a `format: date` parameter: `YYYY-MM-DD` and a day that exists
 * (the same check as the request validator's); else BAD_USER_INPUT on it.
 */
export function dateArg(value: string | null | undefined, name: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isCalendarDate(value)) throw InputError.field(name, `The ${name} argument must be a date that exists, as YYYY-MM-DD (2027-01-31).`);
  return value;
}

/**
 * A DateTime argument as REST takes a `format: date-time` parameter (inputTime: the validator's
 * check and the years 0000 to 9999), passed on as the client wrote it; else BAD_USER_INPUT on it.
 */
export function timeArg(value: string, name: string): string;
export function timeArg(value: string | null | undefined, name: string): string | undefined;
export function timeArg(value: string | null | undefined, name: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  inputTime(value, name, 'argument');
  return value;
}
