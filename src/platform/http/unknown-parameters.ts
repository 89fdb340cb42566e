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
const NONE: readonly ValidatorErrorItem[] = [];

/** The names of the operation's query parameters; null when it takes any. */
function queryNames(op: ContractOperation): ReadonlySet<string> | null {
  let names = known.get(op);
  if (names === undefined) {
    names = op.raw['x-eov-allow-unknown-query-parameters'] === true ? null : new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    known.set(op, names);
  }
  return names;
}

/** Each unknown and each empty query parameter (on every request: no allocation when there is none). */
export function unknownOrEmptyParameters(req: Request): readonly ValidatorErrorItem[] {
  const names = req.operation ? queryNames(req.operation) : null;
  if (!names) return NONE;
  const query = req.query as Record<string, unknown>;
  let found: ValidatorErrorItem[] | undefined;
  for (const name in query) {
    if (!names.has(name)) (found ??= []).push({ path: `/query/${name}`, message: `Unknown query parameter '${name}'` });
    else if (query[name] === '') (found ??= []).push({ path: `/query/${name}`, message: `Empty value found for query parameter '${name}'` });
  }
  return found ?? NONE;
}
