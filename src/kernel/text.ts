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

/** Characters a reader cannot see or tell apart in a message: controls, format (zero-width, bidi), separators other than the space. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu;

/**
 * Text a client sent, shown in a message: in double quotes, so a trailing space shows, with quotes
 * and backslashes escaped and every character a reader cannot see as its \uXXXX escape (\u{XXXXX}
 * past U+FFFF): `"ACME-400\u200B"`, the zero-width space that made the code another.
 */
export function quoted(text: string): string {
  const escaped = text.replace(/["\\]/g, (c) => `\\${c}`).replace(UNSEEN, (c) => {
    const hex = c.codePointAt(0)!.toString(16).toUpperCase();
    // Past U+FFFF (the tag characters of flag emoji) as \u{E0067}: four digits would read as another character.
    return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
  });
  return `"${escaped}"`;
}

/**
 * A code with its ASCII letters upper-cased and nothing else: the one rule by which warehouse,
 * unit and partner codes are the same code. ASCII letters match in either case (`kg` is KG);
 * every other character, accented letters, other scripts, emoji and spaces included, compares
 * exactly (`É` is not `é` nor `E`). The same on both engines because it is made here, not by a
 * database's collation.
 */
export function asciiUpper(code: string): string {
  return code.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

/** Whether two codes are the same code under asciiUpper. */
export function sameCode(a: string, b: string): boolean {
  return asciiUpper(a) === asciiUpper(b);
}
