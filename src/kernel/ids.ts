/** Identifiers the service mints: time-ordered, random, URL-safe (ULID: 48-bit time, 80 random bits). */
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes(16);
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[random[i]! % 32];
  return time + rest;
}

/** An event id, the same on every delivery of the event (`webhook-id`). */
export function eventId(now = Date.now()): string {
  return `evt_${ulid(now)}`;
}
