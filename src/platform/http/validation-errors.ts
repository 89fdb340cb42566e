/**
 * Turns express-openapi-validator's errors into the contract's field errors: keys are the field
 * as the client sent it (`items.0.quantity_um3pl`, `per_page`, `X-Company-Id`), messages read as
 * sentences that say what to fix. A body field's schema is looked up by its path where the wording
 * depends on it: a quantity (`x-quantity`) of the wrong type answers the quantity's own message.
 */
import { QUANTITY_TYPE_MESSAGE, quantityTooLong } from '../../kernel/quantity.js';
import type { FieldErrors } from '../errors.js';
import { DATE_TIME_EXPECTED } from '../input-time.js';
import { resolvedSchema, type Parameter } from '../openapi/document.js';
import { schemasAt, type SchemaNode } from '../openapi/schema-at.js';

export interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

const LOCATIONS = new Set(['body', 'query', 'headers', 'params', 'path', 'cookies']);

/** A key as one segment of a JSON Pointer path (RFC 6901), as the validator writes its paths: `~` is `~0`, `/` is `~1`. */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer segment read back as its key. */
const keyOf = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function fieldOf(path: string, parameters: readonly Parameter[]): string {
  const [location, ...rest] = path.replace(/^\//, '').split('/');
  if (location === undefined || !LOCATIONS.has(location)) return path.replace(/^\//, '').replace(/\//g, '.') || 'body';
  if (rest.length === 0) return location === 'body' ? 'body' : location;
  // A list parameter (`article_id=8,x`) is named as sent, not by the position of the bad value.
  if (location === 'query') return rest[0]!;
  if (location === 'headers') {
    const name = rest.join('/');
    return parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase())?.name ?? name;
  }
  return rest.map(keyOf).join('.');
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** ajv's phrases, reworded: "must be <= 100" -> "must not be greater than 100". */
const REWORDINGS: Array<[RegExp, (...groups: string[]) => string]> = [
  [/^must be <= (.+)$/, (n) => `must not be greater than ${n}`],
  [/^must be >= (.+)$/, (n) => `must be at least ${n}`],
  [/^must be < (.+)$/, (n) => `must be less than ${n}`],
  [/^must be > (.+)$/, (n) => `must be greater than ${n}`],
  [/^must NOT have more than (\d+) characters$/, (n) => `must not be longer than ${n} characters`],
  [/^must NOT have fewer than 1 characters$/, () => 'must not be empty'],
  [/^must NOT have fewer than (\d+) characters$/, (n) => `must be at least ${n} characters long`],
  [/^must NOT have more than (\d+) items$/, (n) => `must not have more than ${n} items`],
  [/^must NOT have fewer than (\d+) items$/, (n) => `must have at least ${n} ${n === '1' ? 'item' : 'items'}`],
  [/^must be equal to one of the allowed values: (.+)$/, (values) => `must be one of: ${values}`],
  // The document's pattern for codes (openapi/schemas: article_code, internal_code, tracking_number).
  [/^must match pattern "\^\[\^\\x00-\\x1F\\x7F-\\x9F\]\*\$"$/, () => 'must not hold control characters (a tab, a line break, NUL)'],
  // The document's pattern for Idempotency-Key: HTTP reads a header's bytes one character each, so
  // a UTF-8 é would count as two characters, and be stored as those two.
  [/^must match pattern "\^\[\\x20-\\x7E\]\*\$"$/, () => 'must be printable ASCII characters (letters, digits, punctuation, spaces; no accented letters)'],
  [/^must be (\w+)(,null)?$/, (type, nullable) => `must be ${TYPE_NAMES[type] ?? type}${nullable ? ' or null' : ''}`],
];

function reword(message: string): string {
  for (const [pattern, replace] of REWORDINGS) {
    const match = pattern.exec(message);
    if (match) return replace(...match.slice(1).map((g) => g ?? ''));
  }
  return message;
}

type ParameterSchema = { type?: string; format?: string; enum?: unknown[]; $ref?: string; items?: ParameterSchema };

/** What a value of each checked format must be (ajv names the format in quotes: `must match format "date"`). */
const FORMATS: Record<string, string> = {
  email: 'must be a valid email address',
  'date-time': `must be ${DATE_TIME_EXPECTED}`,
  date: 'must be a date (YYYY-MM-DD) that exists, such as 2027-03-31',
  int32: 'must be a 32-bit integer (at most 2147483647)',
};

/**
 * What the values of a list of choices must be (`types=a,b`): the validator reports the bad value by
 * its place (`/query/types/1`), and "must be one of" would read as if one value were wanted.
 */
function listOfChoices(parameter: Parameter | undefined): string | undefined {
  const schema = resolvedSchema(parameter?.schema as ParameterSchema | undefined);
  const items = schema?.type === 'array' ? resolvedSchema(schema.items) : undefined;
  return items?.enum ? `must be a comma-separated list of: ${items.enum.join(', ')}` : undefined;
}

/**
 * express-openapi-validator's own messages about query parameters (not ajv's), reworded: they name
 * the parameter in quotes and say "query parameter". Undefined for any other message. (Its
 * "malformed uri" cannot reach it: the operation lookup answers such a path 404 first; nor its
 * "must be url encoded": every query parameter of its copy takes reserved characters, see
 * openapi/reserved-characters.ts.)
 */
function validatorSentence(subject: string, message: string, parameter: Parameter | undefined): string | undefined {
  if (/^Unknown query parameter /.test(message)) return `The ${subject} is not allowed.`;
  // A value of only whitespace (the document's `pattern: '\S'`, on searches) is as empty.
  if (/^Empty value found for query parameter /.test(message) || message === 'must match pattern "\\S"') {
    return `The ${subject} must not be empty${parameter?.required ? '' : '; leave it out instead'}.`;
  }
  return undefined;
}

function sentence(subject: string, keyword: string, message: string, parameter?: Parameter, listItem = false): string {
  const reworded = validatorSentence(subject, message, parameter);
  if (reworded) return reworded;
  const choices = keyword === 'enum' && listItem ? listOfChoices(parameter) : undefined;
  if (choices) return `The ${subject} ${choices}.`;
  switch (keyword) {
    case 'required':
      return `The ${subject} is required.`;
    case 'additionalProperties':
      return `The ${subject} is not allowed.`;
    case 'format': {
      const format = Object.keys(FORMATS).find((name) => message.includes(`"${name}"`));
      return `The ${subject} ${format ? FORMATS[format] : message}.`;
    }
    default:
      // ajv's phrases ("must be integer") name no subject; the validator's own messages are sentences.
      return message.startsWith('must ') ? `The ${subject} ${reword(message)}.` : `${message.replace(/\.+$/, '')}.`;
  }
}

/** ajv-formats' int32 check says again what `maximum: 2147483647` (on every id) already said. */
function redundant(item: ValidatorErrorItem, all: readonly ValidatorErrorItem[]): boolean {
  return item.message?.includes('"int32"') === true && all.some((other) => other !== item && other.path === item.path);
}

const keywordOf = (item: ValidatorErrorItem): string => (item.errorCode ?? '').replace('.openapi.validation', '');

/** Whether the body field at `path` (`/body/items/0/quantity_um3pl`) is a quantity of the document (`x-quantity`). */
function isQuantity(path: string, body: SchemaNode | undefined): boolean {
  const [location, ...segments] = path.replace(/^\//, '').split('/');
  if (location !== 'body' || body === undefined) return false;
  const decoded = segments.map(keyOf);
  return schemasAt(body, decoded).some((schema) => schema['x-quantity'] === true);
}

/**
 * The one message of a field none of whose alternatives (anyOf, oneOf) it matched: the
 * alternatives' own complaints ("must be number", "must be string") say less. A quantity says what
 * to send, or its length limit when only that failed (a string too long).
 */
function alternativesMessage(field: string, items: readonly ValidatorErrorItem[], body: SchemaNode | undefined): string {
  const alternatives = items.find((item) => keywordOf(item) === 'anyOf' || keywordOf(item) === 'oneOf');
  if (!isQuantity(alternatives?.path ?? '', body)) return `The ${field} field does not have an allowed type.`;
  const tooLong = items.map((item) => /^must NOT have more than (\d+) characters$/.exec(item.message ?? '')).find((match) => match !== null);
  return tooLong ? quantityTooLong(tooLong[1]!) : QUANTITY_TYPE_MESSAGE;
}

/**
 * The validator's errors as field errors. `body`: the schema of the request's body (a `$ref` of the
 * document), to word a field's errors by what it is.
 */
export function toFieldErrors(items: readonly ValidatorErrorItem[], parameters: readonly Parameter[], body?: SchemaNode): FieldErrors {
  items = items.filter((item) => !redundant(item, items));
  const byField = new Map<string, ValidatorErrorItem[]>();
  for (const item of items) {
    const field = fieldOf(item.path ?? '', parameters);
    byField.set(field, [...(byField.get(field) ?? []), item]);
  }
  return Object.fromEntries([...byField].map(([field, group]) => [field, messagesOf(field, group, parameters, body)]));
}

function messagesOf(field: string, items: readonly ValidatorErrorItem[], parameters: readonly Parameter[], body: SchemaNode | undefined): string[] {
  if (items.some((item) => keywordOf(item) === 'anyOf' || keywordOf(item) === 'oneOf')) return [alternativesMessage(field, items, body)];
  const parameter = parameters.find((p) => p.name === field);
  // A header is named as one (errors.md): "The Idempotency-Key header must …".
  const subject = `${field} ${parameter?.in === 'header' ? 'header' : 'field'}`;
  const messages: string[] = [];
  for (const item of items) {
    const listItem = /^\/query\/[^/]+\/\d+$/.test(item.path ?? '');
    const message = item.message ? sentence(subject, keywordOf(item), item.message, parameter, listItem) : `The ${subject} is invalid.`;
    if (!messages.includes(message)) messages.push(message);
  }
  return messages;
}
