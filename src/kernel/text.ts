/** Rules of text the service takes from clients. */

/** Unicode's control characters (Cc): C0, DEL and C1 (U+0080 to U+009F). */
const CONTROL = /\p{Cc}/u;

/** Whether `text` holds a control character (a lot, a search term: neither may). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * Text with its case folded, the same on both engines: Unicode's lower case, with the two letters
 * whose lower case JavaScript and MySQL/MariaDB write differently made one: final sigma (ς) is σ,
 * as MariaDB lowers every Σ, and İ is i, as MariaDB lowers it (JavaScript writes i and a combining
 * dot). What a search compares (platform/db/queries.ts).
 */
export function caseFold(text: string): string {
  return text.toLowerCase().replace(/i\u0307/g, 'i').replace(/ς/g, 'σ');
}
