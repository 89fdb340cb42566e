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
}

const classesOf = new WeakMap<Express, Classes>();

/**
 * Classes whose prototypes stand in for the app's `request` and `response`: each inherits what the
 * app's did (Express's methods, then node's) and has its own properties (`app`).
 */
function classesFor(app: Express): Classes {
  const known = classesOf.get(app);
  if (known) return known;
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  adopt(AppRequest.prototype, app.request);
  adopt(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  const classes = { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse };
  classesOf.set(app, classes);
  return classes;
}

/** Makes `target` what `current` is: the same prototype, and the same own properties (`app`). */
function adopt(target: object, current: object): void {
  Object.setPrototypeOf(target, Object.getPrototypeOf(current));
  for (const key of Reflect.ownKeys(current)) Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(current, key)!);
}

export function createHttpServer(app: Express, options: ServerOptions = {}): Server {
  return createServer({ ...options, ...classesFor(app) }, app);
}
