/**
 * Step 1: the access log, one line a request when it ends, without credentials: `request
 * completed` at info (2xx/3xx) or warn (4xx), `request errored` at error (5xx, or a connection
 * closed before the answer was written), with `req` (id, method, url), `res` (statusCode) and
 * `responseTime` in ms: pino-http's line. A client that went away before it had sent its whole
 * request (an upload cut half-way) is `request aborted` at warn, without `res`: nothing was
 * answered, and nothing failed on our side.
 * Written by hand rather than with pino-http, which builds a child logger with the serialized
 * request for every request even when its line is below the level and never written (production
 * logs at warn): about 4 % of the CPU of a small GET, measured by the benchmark's profile.
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      const aborted = !req.complete;
      const status = res.statusCode;
      const errored = !aborted && (status >= 500 || !res.writableFinished);
      const level = errored ? 'error' : aborted || status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const request = { id: req.requestId, method: req.method, url: req.originalUrl };
      const responseTime = Math.round(performance.now() - started);
      if (aborted) logger.warn({ req: request, responseTime }, 'request aborted');
      else logger[level]({ req: request, res: { statusCode: status }, responseTime }, errored ? 'request errored' : 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
