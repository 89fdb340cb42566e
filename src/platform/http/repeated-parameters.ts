/**
 * A query parameter whose value is one value (not a list in the document) sent more than once
 * (`?page=1&page=2`): the query parser reads it as a list, and the validator then said the page
 * "must be an integer", which it was, twice. These are the validator's errors for such values, in
 * its own shape, so that they are listed with every other problem of the request, in place of its
 * own about the same parameter. A list (`article_id=8&article_id=9`) may be repeated.
 */
import type { Request } from 'express';
import { resolvedSchema, type Parameter } from '../openapi/document.js';
import type { ValidatorErrorItem } from './validation-errors.js';

type SchemaNode = { $ref?: string; type?: string };

function isList(schema: SchemaNode | undefined): boolean {
  return resolvedSchema(schema)?.type === 'array';
}

const known = new WeakMap<readonly Parameter[], string[]>();
const NONE: readonly ValidatorErrorItem[] = [];

/** The names of the operation's query parameters that take one value. */
function singleValued(parameters: readonly Parameter[]): string[] {
  let names = known.get(parameters);
  if (!names) {
    names = parameters.filter((p) => p.in === 'query' && !isList(p.schema as SchemaNode | undefined)).map((p) => p.name);
    known.set(parameters, names);
  }
  return names;
}

/** Each one-value query parameter sent more than once (on every request: no allocation when none is). */
export function repeatedParameters(req: Request): readonly ValidatorErrorItem[] {
  const parameters = req.operation?.parameters;
  if (!parameters) return NONE;
  const query = req.query as Record<string, unknown>;
  let found: ValidatorErrorItem[] | undefined;
  for (const name of singleValued(parameters)) {
    const sent = query[name];
    if (Array.isArray(sent)) (found ??= []).push({ path: `/query/${name}`, message: `must be sent once; it was sent ${sent.length} times`, errorCode: 'repeated.openapi.validation' });
  }
  return found ?? NONE;
}
