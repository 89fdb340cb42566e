/** What an update really changes: only the fields whose new values differ from the current ones. */

/** SQLite and MySQL answer booleans as 0/1. */
function normalize(value: unknown): unknown {
  return value === 0 || value === 1 ? Boolean(value) : value;
}

export function changedFields<T extends object>(current: T, next: Partial<T>): Partial<T> {
  const changes: Partial<T> = {};
  for (const [key, value] of Object.entries(next) as Array<[keyof T, T[keyof T]]>) {
    if (value !== undefined && normalize(value) !== normalize(current[key])) changes[key] = value;
  }
  return changes;
}
