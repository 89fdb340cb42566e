/** Rules of webhook delivery, pure: which events a subscription wants, and when to try again. */

/** Retries after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h and 12 h (about 22 h in all), each ±20 %. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A subscription all of whose deliveries failed for this long is switched off. */
export const FAILING_DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
/** A Retry-After longer than this is not waited for in full. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export function wants(filters: readonly string[], type: string): boolean {
  return filters.includes('*') || filters.includes(type);
}

/** `*` beside event names: a filter that says two things (a client meant one of them). */
export function mixesWildcard(filters: readonly string[]): boolean {
  return filters.includes('*') && filters.some((f) => f !== '*');
}

/**
 * What withholds an event from a subscription: a module that is off (whose, and which), or a type
 * the catalogue does not know (no module says who may have it).
 */
export type Withheld = { of: 'subscriber' | 'client'; companyId: number; module: string } | { of: 'catalogue'; type: string };

/** The test event, which no content module holds: it needs the subscriber's api and webhooks alone. */
export const PING_TYPE = 'webhook.ping';

/**
 * Whether a subscription may get an event of `type` now, by the modules on: the company that owns
 * the subscription needs `api`, `webhooks` and the type's content module (`contentModule`: what it
 * could read through REST and the feed), and the company the event is about that content module
 * (the feed shows a client's events only while it is on). A ping needs the subscriber's `api` and
 * `webhooks` alone; a type with no content module that is not the ping is withheld. Answers the
 * first reason found, or undefined.
 */
export function withheldBy(
  type: string,
  contentModule: string | undefined,
  subscriber: { id: number; modules: ReadonlySet<string> | undefined },
  client: { id: number; modules: ReadonlySet<string> | undefined },
): Withheld | undefined {
  if (contentModule === undefined && type !== PING_TYPE) return { of: 'catalogue', type };
  for (const module of ['api', 'webhooks', ...(contentModule === undefined ? [] : [contentModule])]) {
    if (!subscriber.modules?.has(module)) return { of: 'subscriber', companyId: subscriber.id, module };
  }
  if (contentModule !== undefined && !client.modules?.has(contentModule)) return { of: 'client', companyId: client.id, module: contentModule };
  return undefined;
}

/** Why it is withheld: what a withheld delivery records, and a refused ping or redelivery says. */
export function withheldReason(withheld: Withheld): string {
  if (withheld.of === 'catalogue') return `the event type ${withheld.type} is not in the catalogue, so no module lets anyone have it`;
  const whose = withheld.of === 'subscriber' ? 'the company that owns the subscription' : 'the company the event is about';
  return `the ${withheld.module} module is off for company ${withheld.companyId}, ${whose}`;
}

export type AttemptOutcome = 'delivered' | 'gone' | 'retry';

/** 2xx delivers; 410 Gone switches the subscription off; anything else (and no answer) is retried. */
export function outcomeOf(status: number | undefined): AttemptOutcome {
  if (status !== undefined && status >= 200 && status < 300) return 'delivered';
  return status === 410 ? 'gone' : 'retry';
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = header.trim();
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * The wait before the next attempt after `attemptsMade` failed ones, or undefined when the
 * delivery has had all its attempts. `random` in [0, 1) spreads it by ±20 %; a longer Retry-After
 * from the receiver wins.
 */
export function nextDelayMs(attemptsMade: number, random: number, retryAfter?: number): number | undefined {
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.8 + 0.4 * random));
  return Math.max(jittered, retryAfter ?? 0);
}
