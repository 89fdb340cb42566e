/**
 * Text in a JSON body must be Unicode: JSON's `\uD800` escapes can write half of a surrogate pair,
 * which no database column can hold (SQLite and MariaDB store U+FFFD instead, so an article code
 * came back changed and could not be found again by the code it was created with). Each string
 * holding one is reported in the request validator's shape, beside the other problems.
 */
import type { ValidatorErrorItem } from './validation-errors.js';

/** String.prototype.isWellFormed (Node 20; not in the ES2022 typings). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

const MESSAGE = 'must be valid Unicode text: it holds half of a surrogate pair (a lone \\uD800-\\uDFFF escape)';

/** Every string of `body` (keys included) that is not well-formed Unicode, by its path. */
export function unpairedSurrogates(body: unknown): ValidatorErrorItem[] {
  const found: ValidatorErrorItem[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (!wellFormed(value)) found.push({ path, message: MESSAGE, errorCode: 'format.openapi.validation' });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${path}/${index}`));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (!wellFormed(key)) found.push({ path: at, message: MESSAGE, errorCode: 'format.openapi.validation' });
        else visit(item, at);
      }
    }
  };
  visit(body, '/body');
  return found;
}
