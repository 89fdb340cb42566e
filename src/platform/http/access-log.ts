/**
 * Step 1: the access log, one JSON line a request when it ends, without credentials (no header,
 * and the values of query parameters named like one are redacted):
 * `request completed` at info (1xx-4xx: a scanner's 404s and 401s must not flood the warn level;
 * and a probe's 503, which reports the state asked for), `request errored` at error (5xx, or a
 * connection closed before the answer was written). Each
 * line carries `requestId` (the key every line about a request uses, the error handler's too),
 * `operation` (the operationId), `company` (the company in scope), `user` or `integration` (who
 * called), `req` (method, url, userAgent), `res` (statusCode, size: the body's bytes as sent,
 * compressed when it was) and `responseTime` in ms. A client that went away before it had sent
 * its whole request (an upload cut half-way) is `request aborted` at warn, without `res`: nothing
 * was answered, and nothing failed on our side. One that went away after sending it, before the
 * answer began (a client's timeout), is `request abandoned` at warn, without `res`: the work goes
 * on and may well succeed (a retry with its Idempotency-Key is answered from it), so it is no
 * error of ours and has no status yet. One that node:http answered itself (client-errors.ts: a
 * body not received within HTTP_REQUEST_TIMEOUT_MS, `request timed out` with 408, at warn; a
 * malformed body, 400 or 413, at info) is logged with that status.
 * Written by hand rather than with pino-http, which builds a child logger with the serialized
 * request for every request even when its line is below the level and never written (production
 * logs at warn): about 4 % of the CPU of a small GET, measured by the benchmark's profile.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { CLIENT_ERROR_LINES } from './client-errors.js';

/** A user agent is the client's to choose: kept to this many characters. */
const USER_AGENT_MAX = 256;

/** Who called and for which company, as the request path resolved them (absent before authentication). */
function caller(req: Request): { company?: number; user?: number; integration?: string } {
  const auth = req.auth;
  if (!auth) return {};
  const company = auth.scope?.kind === 'company' ? auth.scope.companyId : undefined;
  const principal = auth.principal;
  return principal.kind === 'user' ? { company, user: principal.user.id } : { company, integration: principal.integration };
}

/**
 * A probe's 503 (the `Health` operations: not ready, unhealthy) is the state it was asked for, not a
 * request that failed: a load balancer reads /readyz every second while an instance is not ready.
 */
function reportsState(req: Request, status: number): boolean {
  return status === 503 && (req.operation?.raw.tags?.includes('Health') ?? false);
}

/** Query parameters whose values are never logged: a client may put a credential in the URL (refused, but sent). */
const SECRET_PARAMETER = /pass|pwd|token|secret|key|auth|sig|session|credential/i;

/** The request's URL as logged: the values of parameters named like a credential are `[redacted]`. */
export function loggedUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      let name = pair.slice(0, equals);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A name that is not percent-encoded text is judged as sent.
      }
      return SECRET_PARAMETER.test(name) ? `${pair.slice(0, equals)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, mark + 1)}${query}`;
}

function bodySize(res: Response): number | undefined {
  const length = res.getHeader('content-length');
  return length === undefined ? undefined : Number(length);
}

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      // Answered by node:http itself (client-errors.ts): a timeout at warn (as a connection that
      // broke off), a malformed body at info (as a 4xx).
      const refused = req.clientErrorStatus;
      const aborted = refused === undefined && !req.complete;
      const abandoned = refused === undefined && !aborted && !res.headersSent && !res.writableFinished;
      const unanswered = aborted || abandoned;
      const status = refused ?? res.statusCode;
      const errored = !unanswered && refused === undefined && ((status >= 500 && !reportsState(req, status)) || !res.writableFinished);
      const level = errored ? 'error' : unanswered || refused === 408 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const userAgent = req.headers['user-agent']?.slice(0, USER_AGENT_MAX);
      const line = {
        requestId: req.requestId,
        operation: req.operation?.operationId,
        ...caller(req),
        req: { method: req.method, url: loggedUrl(req.originalUrl), userAgent },
        ...(unanswered ? {} : { res: { statusCode: status, size: refused === undefined ? bodySize(res) : undefined } }),
        responseTime: Math.round(performance.now() - started),
      };
      logger[level](line, refused !== undefined ? CLIENT_ERROR_LINES[refused]! : aborted ? 'request aborted' : abandoned ? 'request abandoned' : errored ? 'request errored' : 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
