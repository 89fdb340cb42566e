/**
 * Step 2: finds the operation of the document for the request. An unknown path answers 404; a
 * known path with another method 405 with Allow (OPTIONS answers 204 with Allow). The match is
 * handed to express-openapi-validator as `req.openapi`, so it does not search the document again.
 * An operation the document marks `deprecated` gets its `Deprecation` and `Sunset` headers on
 * every answer, errors included (docs/guide/versioning.md).
 */
import type { RequestHandler } from 'express';
import { MethodNotAllowedError, NotFoundError } from '../errors.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import type { RequestWithOpenApi } from './request-context.js';

function shown(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/** Whether every percent-escape of `path` is one, and the bytes they make UTF-8. */
function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** The 404 of a path no operation has, saying so when the path cannot be read at all. */
function notFound(method: string, path: string): NotFoundError {
  const message = `The route ${method} ${shown(path)} could not be found`;
  if (decodable(path)) return new NotFoundError(`${message}.`);
  return new NotFoundError(`${message}: its path is not valid percent-encoding. Encode text as UTF-8 before percent-encoding it (é is %C3%A9, not %E9), and a % of the text as %25.`);
}

/** The methods of a known path: its operations', HEAD where it has GET, and OPTIONS, answered on every known path. */
function allowedMethods(methods: Iterable<string>): string[] {
  const allow = [...methods];
  if (allow.includes('GET')) allow.push('HEAD');
  allow.push('OPTIONS');
  return allow;
}

export function operationLookup(router: OperationRouter): RequestHandler {
  return (req, res, next) => {
    const match = router.match(req.path);
    if (!match) throw notFound(req.method, req.path);
    const op = match.methods.get(req.method === 'HEAD' ? 'GET' : req.method);
    if (!op) {
      const allow = allowedMethods(match.methods.keys());
      if (req.method === 'OPTIONS') {
        res.setHeader('Allow', allow.join(', '));
        res.status(204).end();
        return;
      }
      throw new MethodNotAllowedError(
        `The ${req.method} method is not supported for ${shown(req.path)}. Supported methods: ${allow.join(', ')}.`,
        allow,
      );
    }
    req.operation = op;
    if (op.deprecationHeaders) for (const [name, value] of op.deprecationHeaders) res.setHeader(name, value);
    (req as RequestWithOpenApi).openapi = {
      expressRoute: op.path.replace(/\{([^}]+)\}/g, ':$1'),
      openApiRoute: op.path,
      pathParams: { ...match.pathParams },
      schema: op.validatorSchema,
    };
    next();
  };
}
