/**
 * Identifiers the service mints: time-ordered, URL-safe ULIDs (48-bit time, 80 random bits),
 * strictly increasing in the process that mints them (the ULID spec's monotonic factory).
 */
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_DIGITS = 16;

/** 16 random base-32 digits (80 bits). */
function randomDigits(): number[] {
  return Array.from(randomBytes(RANDOM_DIGITS), (byte) => byte % 32);
}

/** Adds one to the base-32 digits in place; false when they were all 31 (no room left). */
function increment(digits: number[]): boolean {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i]! += 1;
      return true;
    }
    digits[i] = 0;
  }
  return false;
}

function timeDigits(ms: number): string {
  let time = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  return time;
}

/**
 * A source of ULIDs each greater than the one before (compared as strings). A millisecond later
 * than the last id's starts with fresh random digits; within the same millisecond (or when the
 * clock reads earlier, as it may after a correction) the id keeps the last one's time and its
 * random part is the last one's plus one, so the ids of one process sort in the order they were
 * minted. `fresh`: a new millisecond's random part, 16 digits of 0 to 31 (a new array each time).
 */
export function monotonicUlids(fresh: () => number[] = randomDigits): (now?: number) => string {
  let lastTime = -1;
  let random: number[] = [];
  return (now = Date.now()) => {
    if (now > lastTime) {
      lastTime = now;
      random = fresh();
    } else if (!increment(random)) {
      // 2^80 ids in one millisecond: the next millisecond's first id.
      lastTime += 1;
      random = fresh();
    }
    return timeDigits(lastTime) + random.map((digit) => CROCKFORD[digit]).join('');
  };
}

/** This process's ULIDs: each greater than the one before. */
export const ulid = monotonicUlids();

/**
 * An event id, the same on every delivery of the event (`webhook-id`). The ids a process mints
 * increase, so the events one transaction records sort by id in the order they were recorded.
 */
export function eventId(now = Date.now()): string {
  return `evt_${ulid(now)}`;
}
