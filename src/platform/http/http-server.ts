/**
 * The node:http server of the Express app, whose requests and responses are born as the app's.
 *
 * Express gives each request and response the app's prototypes as it takes them
 * (`Object.setPrototypeOf` in `app.handle`, to serve mounted sub-apps). Changing a live object's
 * prototype is V8's slow path (expressjs/express#5998, nodejs/node#37457), and measured here it
 * also kept every request's objects alive through young-generation collections (88 % of what a
 * collection found alive was promoted, to be freed only by full collections): an app of
 * express.json and a fixed answer cost about 140 µs of CPU per request instead of 35 µs.
 *
 * node:http builds its request and response from the classes given to `createServer` (its
 * documented `IncomingMessage` and `ServerResponse` options), so here the app's `request` and
 * `response` become the prototypes of two such classes: Express's switch then finds the prototype
 * already in place and changes nothing. A server made otherwise (supertest given the app,
 * `app.listen`) still works: Express switches the prototype as before.
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
