/**
 * Integer path and query parameters are read as decimal digits only. The request validator always
 * coerces parameters (ajv's coerceTypes, whatever the option says), and ajv reads a string as the
 * number it loosely equals: `/api/articles/0x10` was article 16, `1e1` was 10, `+1`, ` 1` and
 * `0b1` were 1, so a typo or a client's own number formatting could read or change another
 * resource. These are the validator's errors for such values, in its own shape, so that they are
 * listed with every other problem of the request.
 */
import type { Request } from 'express';
import { resolvedSchema, type Parameter } from '../openapi/document.js';
import type { RequestWithOpenApi } from './request-context.js';
import type { ValidatorErrorItem } from './validation-errors.js';

const DECIMAL = /^-?[0-9]+$/;

interface IntegerParameter {
  in: 'path' | 'query';
  name: string;
  /** A list (`article_id=8,9`): each of its comma-separated values is an integer. */
  list: boolean;
}

type SchemaNode = { $ref?: string; type?: string; items?: SchemaNode };

/** The operation's integer path and query parameters (and lists of integers). */
export function integerParameters(parameters: readonly Parameter[]): IntegerParameter[] {
  return parameters.flatMap((p): IntegerParameter[] => {
    if (p.in !== 'path' && p.in !== 'query') return [];
    const schema = resolvedSchema(p.schema as SchemaNode | undefined);
    if (schema?.type === 'integer') return [{ in: p.in, name: p.name, list: false }];
    if (schema?.type === 'array' && resolvedSchema(schema.items)?.type === 'integer') return [{ in: p.in, name: p.name, list: true }];
    return [];
  });
}

const known = new WeakMap<readonly Parameter[], IntegerParameter[]>();

/** Each integer parameter sent in another form than decimal digits, as the validator reports a value that is not an integer. */
export function nonDecimalIntegers(req: Request): ValidatorErrorItem[] {
  const parameters = req.operation?.parameters;
  if (!parameters) return [];
  let integers = known.get(parameters);
  if (!integers) known.set(parameters, (integers = integerParameters(parameters)));
  const found: ValidatorErrorItem[] = [];
  for (const p of integers) {
    const sent: unknown = p.in === 'path' ? (req as RequestWithOpenApi).openapi?.pathParams?.[p.name] : (req.query as Record<string, unknown>)[p.name];
    // A one-value parameter sent more than once is refused as such (repeated-parameters.ts).
    if (sent === undefined || (Array.isArray(sent) && !p.list)) continue;
    const values = (Array.isArray(sent) ? sent : [sent]).flatMap((v) => (p.list && typeof v === 'string' ? v.split(',') : [v]));
    // An empty value has the validator's own message (leave it out).
    if (values.every((v) => typeof v === 'string' && (v === '' || DECIMAL.test(v)))) continue;
    found.push({ path: `/${p.in === 'path' ? 'params' : 'query'}/${p.name}`, message: 'must be integer', errorCode: 'type.openapi.validation' });
  }
  return found;
}
