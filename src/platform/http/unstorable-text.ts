/**
 * Text in a JSON body that no engine keeps as sent, or not alike:
 * - half of a surrogate pair (JSON's `\uD800` escapes can write one), which no database column can
 *   hold: SQLite and MariaDB store U+FFFD instead, so an article code came back changed and could
 *   not be found again by the code it was created with;
 * - NUL (U+0000), which both store, but SQLite's LIKE ends the text there: the words after it were
 *   found by a search on MariaDB and not on SQLite. No text of the document has a use for it.
 * Each string holding one is reported in the request validator's shape, beside the other problems.
 */
import type { ValidatorErrorItem } from './validation-errors.js';

/** String.prototype.isWellFormed (Node 20; not in the ES2022 typings). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

const SURROGATE = 'must be valid Unicode text: it holds half of a surrogate pair (a lone \\uD800-\\uDFFF escape)';
const NUL = 'must not hold the NUL character (\\u0000)';

/** What is wrong with `text`, or undefined. */
function problemOf(text: string): string | undefined {
  if (!wellFormed(text)) return SURROGATE;
  return text.includes('\0') ? NUL : undefined;
}

/** Every string of `body` (keys included) that holds half of a surrogate pair or NUL, by its path. */
export function unstorableText(body: unknown): ValidatorErrorItem[] {
  const found: ValidatorErrorItem[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      const message = problemOf(value);
      if (message) found.push({ path, message, errorCode: 'format.openapi.validation' });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${path}/${index}`));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const message = problemOf(key);
        if (message) found.push({ path: at, message, errorCode: 'format.openapi.validation' });
        else visit(item, at);
      }
    }
  };
  visit(body, '/body');
  return found;
}
