/**
 * Security headers on every answer (helmet's): no sniffing, no framing, no referrer, HSTS, and a
 * Content-Security-Policy that lets a JSON answer load and run nothing. The two HTML pages (the
 * reference at /docs and GraphiQL) set PAGE_CONTENT_SECURITY_POLICY instead.
 */
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * An offline page: its scripts and styles are inline, search and editors run in blob: workers, it
 * talks only to this server, and it loads nothing from anywhere else.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const helmetFor = () =>
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    referrerPolicy: { policy: 'no-referrer' },
  });

/**
 * The headers helmet sets, asked of it once: with these options they depend on nothing in the
 * request, so each answer gets the same list in one loop instead of a dozen middleware calls.
 */
export function helmetHeaders(): ReadonlyArray<readonly [string, string]> {
  const headers: Array<[string, string]> = [];
  let done = false;
  const res = { setHeader: (name: string, value: unknown) => void headers.push([name, String(value)]), removeHeader: () => undefined };
  helmetFor()({} as never, res as never, () => (done = true));
  if (!done) throw new Error('helmet did not set its headers synchronously: check the upgrade');
  return headers;
}

export function securityHeaders(): RequestHandler {
  const headers = helmetHeaders();
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
