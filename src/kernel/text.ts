/** Rules of text the service takes from clients. */

/** Unicode's control characters (Cc): C0, DEL and C1 (U+0080 to U+009F). */
const CONTROL = /\p{Cc}/u;

/** Whether `text` holds a control character (a lot, a search term: neither may). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}
