/**
 * Checks a value against one named schema of the document, with the same wording as request
 * validation (validation-errors.ts): for the items of a bulk request, each of which stands alone,
 * so the request is not refused whole for one bad item.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldErrors } from '../errors.js';
import { toFieldErrors, type ValidatorErrorItem } from '../http/validation-errors.js';
import { readDocument } from './document.js';
import type { SchemaName } from './schemas.js';

// ajv-formats is CommonJS: under ESM its function is the module's `default`.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => void }).default;

const INT32 = { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -2_147_483_648 && n <= 2_147_483_647 } as const;

let shared: Ajv | undefined;

function ajv(): Ajv {
  if (shared) return shared;
  shared = new Ajv({ allErrors: true, strict: false, coerceTypes: false });
  addFormats(shared);
  shared.addFormat('int32', INT32);
  for (const name of ['int64', 'float', 'double', 'byte', 'binary', 'password']) shared.addFormat(name, true);
  shared.addSchema({ components: readDocument().components }, 'document');
  return shared;
}

/** The error of ajv as express-openapi-validator reports it, at the field it is about. */
function asValidatorItem(error: ErrorObject): ValidatorErrorItem {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const field = params.missingProperty ?? params.additionalProperty;
  return { path: `/body${error.instancePath}${field ? `/${field}` : ''}`, message: error.message, errorCode: `${error.keyword}.openapi.validation` };
}

/** A checker of `name`: the field errors of a value, keyed as in a single request's 422, or undefined when it passes. */
export function schemaValidator(name: SchemaName): (value: unknown) => FieldErrors | undefined {
  const validate = ajv().compile({ $ref: `document#/components/schemas/${name}` });
  const schema = { $ref: `#/components/schemas/${name}` };
  return (value) => (validate(value) ? undefined : toFieldErrors((validate.errors ?? []).map(asValidatorItem), [], schema));
}
