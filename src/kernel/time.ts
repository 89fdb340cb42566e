/**
 * Times: stored as 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC, DATETIME(6) on MySQL/MariaDB, text on
 * SQLite, so they sort and compare alike on both) and shown as '2026-11-21T10:00:00.000000Z'.
 */

const API_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?$/;

/** The current time as stored. Microseconds come from the high-resolution clock. */
export function nowDb(clock: () => number = () => performance.timeOrigin + performance.now()): string {
  const micros = Math.floor(clock() * 1000);
  const iso = new Date(Math.floor(micros / 1000)).toISOString(); // 2026-11-21T10:00:00.123Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

/** A stored time as the API shows it. */
export function toApiTime(value: string | Date): string {
  if (value instanceof Date) return value.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const match = API_TIME.exec(value);
  if (!match) throw new Error(`Not a stored time: ${value}`);
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0')}Z`;
}

/** An ISO 8601 time from a client (any offset) as stored, in UTC. */
export function fromApiTime(value: string): string {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new Error(`Not a date-time: ${value}`);
  const fraction = /\.(\d{1,6})/.exec(value)?.[1] ?? '';
  const iso = parsed.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${fraction.padEnd(6, '0')}`;
}

export function epochMs(value: string): number {
  return Date.parse(toApiTime(value));
}
