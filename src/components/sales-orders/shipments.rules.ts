/** The rules of a shipment's own fields, pure: its tracking URL and when it shipped. */
import { fromApiTime, nowDb } from '../../kernel/time.js';

/** How far ahead of the server's clock a ship time may be (clocks of warehouse terminals drift). */
export const SHIPPED_AT_LEEWAY_MS = 10 * 60 * 1000;
/** The earliest ship time taken. */
export const EARLIEST_SHIPPED_AT = '2000-01-01T00:00:00Z';

export const messages = {
  trackingUrl: 'The tracking_url must be an absolute http or https URL, such as https://carrier.example/track?id=JD0146.',
  shippedAtFuture: 'The shipped_at must not be more than 10 minutes ahead of the server clock; send when the goods left.',
  shippedAtPast: `The shipped_at must not be before ${EARLIEST_SHIPPED_AT}.`,
};

/** Why a tracking URL is refused, or undefined when it is an absolute http(s) URL. */
export function trackingUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return messages.trackingUrl;
  }
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '' ? undefined : messages.trackingUrl;
}

/** Why a ship time (as stored: times as stored sort as they compare, to the microsecond) is refused at `nowMs`, or undefined. */
export function shippedAtProblem(stored: string, nowMs: number): string | undefined {
  if (stored < fromApiTime(EARLIEST_SHIPPED_AT)) return messages.shippedAtPast;
  if (stored > nowDb(() => nowMs + SHIPPED_AT_LEEWAY_MS)) return messages.shippedAtFuture;
  return undefined;
}
