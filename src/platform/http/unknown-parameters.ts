/**
 * Query parameters the operation does not take, and empty values (`status=`). express-openapi-validator
 * checks both itself, but throws at the first one it meets, before its schema validation runs:
 * `?foo=bar&page=0` answered a 422 on `foo` alone, hiding `page`. Its own check is turned off
 * (`allowUnknownQueryParameters: true` in validation.ts) and this one reports each of them, in the
 * validator's own words and shape, so that validation.ts lists them with every schema error of the
 * request. As the validator's, it skips an operation marked `x-eov-allow-unknown-query-parameters`
 * (codegen/derive-policy.ts: a read that takes no parameter at all). The document has no
 * `allowEmptyValue` and no query security, the validator's other two exceptions.
 */
import type { Request } from 'express';
import type { ContractOperation } from '../openapi/document.js';
import type { ValidatorErrorItem } from './validation-errors.js';

const known = new WeakMap<ContractOperation, ReadonlySet<string> | null>();
const NONE: readonly QueryProblem[] = [];

/** The names of the operation's query parameters; null when it takes any. */
function queryNames(op: ContractOperation): ReadonlySet<string> | null {
  let names = known.get(op);
  if (names === undefined) {
    names = op.raw['x-eov-allow-unknown-query-parameters'] === true ? null : new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    known.set(op, names);
  }
  return names;
}

/** A parameter's name with brackets, as PHP and qs write arrays and objects: `status[]`, `status[0]`. */
const BRACKETED = /^(.+?)\[[^\]]*\]$/;

/** The parameter of `names` that `name` writes with brackets (`status` for `status[]`), if any. */
function bracketedParameter(name: string, names: ReadonlySet<string>): string | undefined {
  const base = BRACKETED.exec(name)?.[1];
  return base !== undefined && names.has(base) ? base : undefined;
}

/** An unknown or empty query parameter; `covers`: the path of the parameter it writes with brackets, when that one was not sent itself. */
export type QueryProblem = ValidatorErrorItem & { covers?: string };

/**
 * Each unknown and each empty query parameter (on every request: no allocation when there is none).
 * A known parameter written with brackets says to send it without them; the validator, which
 * reads `status[]` as `status` too, would otherwise add its own errors of `status` (validation.ts
 * drops them, by `covers`, when `status` itself was not sent).
 */
export function unknownOrEmptyParameters(req: Request): readonly QueryProblem[] {
  const names = req.operation ? queryNames(req.operation) : null;
  if (!names) return NONE;
  const query = req.query as Record<string, unknown>;
  let found: QueryProblem[] | undefined;
  for (const name in query) {
    if (!names.has(name)) {
      const base = bracketedParameter(name, names);
      if (base === undefined) (found ??= []).push({ path: `/query/${name}`, message: `Unknown query parameter '${name}'` });
      else {
        const message = `The ${name} field is not allowed: send ${base} without brackets (${base}=…).`;
        (found ??= []).push({ path: `/query/${name}`, message, ...(base in query ? {} : { covers: `/query/${base}` }) });
      }
    } else if (query[name] === '') (found ??= []).push({ path: `/query/${name}`, message: `Empty value found for query parameter '${name}'` });
  }
  return found ?? NONE;
}
