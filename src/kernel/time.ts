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

const CLIENT_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/**
 * The instant of a UTC calendar time. Date.UTC reads years 0 to 99 as 1900 to 1999: the year,
 * month and day are set together instead.
 */
function utcInstant(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Date {
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second));
  date.setUTCFullYear(year, month - 1, day);
  return date;
}

function daysIn(year: number, month: number): number {
  return utcInstant(year, month + 1, 0).getUTCDate();
}

/**
 * An RFC 3339 / ISO 8601 time from a client (offset Z, +02, +0200 or +02:00) as stored, in UTC,
 * keeping microseconds. A leap second (:60) counts as the last microsecond of its minute.
 */
export function fromApiTime(value: string): string {
  const m = CLIENT_TIME.exec(value.trim());
  if (!m) throw new Error(`Not a date-time: ${value}`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [fraction = '', , sign, offsetHours = '0', offsetMinutes = '0'] = m.slice(7);
  const valid =
    month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && second <= 60 &&
    Number(offsetHours) <= 23 && Number(offsetMinutes) <= 59;
  if (!valid) throw new Error(`Not a date-time: ${value}`);
  const leap = second === 60;
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 : 0;
  const utc = new Date(utcInstant(year, month, day, hour, minute, leap ? 59 : second).getTime() - offsetMs);
  // Beyond the four-digit years (9999-12-31T23:00-01:00 is in 10000) the stored text would sort before them all.
  if (utc.getUTCFullYear() < 0 || utc.getUTCFullYear() > 9999) throw new RangeError(`Not a time of the years 0000 to 9999 in UTC: ${value}`);
  const iso = utc.toISOString();
  const micros = leap ? '999999' : fraction.slice(0, 6).padEnd(6, '0');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${micros}`;
}

export function epochMs(value: string): number {
  return Date.parse(toApiTime(value));
}
