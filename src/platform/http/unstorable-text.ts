/**
 * Text in a JSON body that no engine keeps as sent, or not alike:
 * - half of a surrogate pair (JSON's `\uD800` escapes can write one), which no database column can
 *   hold: SQLite and MariaDB store U+FFFD instead, so an article code came back changed and could
 *   not be found again by the code it was created with;
 * - NUL (U+0000), which both store, but SQLite's LIKE ends the text there: the words after it were
 *   found by a search on MariaDB and not on SQLite. No text of the document has a use for it.
 * Each string holding one is reported in the request validator's shape, beside the other problems.
 * The same visit refuses objects and arrays nested deeper than MAX_BODY_DEPTH, where it stops.
 */
import { pointerSegment, type ValidatorErrorItem } from './validation-errors.js';

/** String.prototype.isWellFormed (Node 20; not in the ES2022 typings). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

const SURROGATE = 'must be valid Unicode text: it holds half of a surrogate pair (a lone \\uD800-\\uDFFF escape)';
const NUL = 'must not hold the NUL character (\\u0000)';

/** What is wrong with `text`, or undefined. */
function problemOf(text: string): string | undefined {
  if (!wellFormed(text)) return SURROGATE;
  return text.includes('\0') ? NUL : undefined;
}

/**
 * How deep objects and arrays may lie within each other in a body. The document's deepest input is
 * 4 levels (a bulk's items, their lines, a line's object); this visit, and anything after it that
 * recurses over the body, would exhaust the stack on thousands (a 12 KB body of nested arrays).
 */
export const MAX_BODY_DEPTH = 32;

const TOO_DEEP = `must not nest objects and arrays more than ${MAX_BODY_DEPTH} levels deep`;

/**
 * Every string of `body` (keys included) that holds half of a surrogate pair or NUL, by its path,
 * and the first place where objects and arrays lie deeper than MAX_BODY_DEPTH (not visited further).
 */
export function unstorableText(body: unknown): ValidatorErrorItem[] {
  const found: ValidatorErrorItem[] = [];
  let tooDeep = false;
  const visit = (value: unknown, path: string, depth: number): void => {
    if (typeof value === 'string') {
      const message = problemOf(value);
      if (message) found.push({ path, message, errorCode: 'format.openapi.validation' });
    } else if (typeof value === 'object' && value !== null && depth >= MAX_BODY_DEPTH) {
      if (!tooDeep) found.push({ path, message: TOO_DEEP, errorCode: 'maxDepth.openapi.validation' });
      tooDeep = true;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${path}/${index}`, depth + 1));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const at = `${path}/${pointerSegment(key)}`;
        const message = problemOf(key);
        if (message) found.push({ path: at, message, errorCode: 'format.openapi.validation' });
        else visit(item, at, depth + 1);
      }
    }
  };
  visit(body, '/body', 0);
  return found;
}
