/**
 * The node:http server of the Express app, whose requests and responses are born with the app's
 * prototypes (node:http's documented `IncomingMessage`/`ServerResponse` options), so Express's
 * per-request `Object.setPrototypeOf` finds them in place and changes nothing: switching a live
 * object's prototype is V8's slow path and kept each request alive longer (docs/performance.md).
 * Apps served otherwise (supertest, `app.listen`) still work.
 */
import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Express } from 'express';

interface Classes {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
  /** From now on every answer closes its connection (Connection: close), those under way included. */
  closeEveryAnswer(): void;
}

const classesOf = new WeakMap<Express, Classes>();

/**
 * Classes whose prototypes stand in for the app's `request` and `response`: each inherits what the
 * app's did (Express's methods, then node's) and has its own properties (`app`).
 */
function classesFor(app: Express): Classes {
  const known = classesOf.get(app);
  if (known) return known;
  let closing = false;
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {
    // Every answer writes its head here (res.end's implicit head too), so a request already under
    // way when the server drains answers `Connection: close` as well as one that comes after.
    writeHead(...args: unknown[]): this {
      if (closing) this.shouldKeepAlive = false;
      return (super.writeHead as unknown as (...head: unknown[]) => this).apply(this, args);
    }
  }
  adopt(AppRequest.prototype, app.request);
  adopt(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  const classes = { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse, closeEveryAnswer: () => void (closing = true) };
  classesOf.set(app, classes);
  return classes;
}

/** Makes `target` what `current` is: the same prototype, and the same own properties (`app`). */
function adopt(target: object, current: object): void {
  Object.setPrototypeOf(target, Object.getPrototypeOf(current));
  for (const key of Reflect.ownKeys(current)) Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(current, key)!);
}

export function createHttpServer(app: Express, options: ServerOptions = {}): Server {
  const { IncomingMessage: request, ServerResponse: response } = classesFor(app);
  return createServer({ ...options, IncomingMessage: request, ServerResponse: response }, app);
}

/**
 * While the server drains (SIGTERM): every answer of createHttpServer's server closes its
 * connection, the answers of requests under way included, so that no client sends its next request
 * on a connection about to be closed.
 */
export function closeEveryAnswer(app: Express): void {
  classesFor(app).closeEveryAnswer();
}
