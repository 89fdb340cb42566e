/**
 * Step 5: authentication as the operation's `security` says. `bearerAuth`: a personal access
 * token; `etsmToken`/`mdmToken`: the integration's shared token from the configuration, compared
 * in constant time (503 when it is not configured). An operation that also allows `{}` lets a
 * request without Authorization through; a token that is sent must be valid.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../../config.js';
import { ServiceUnavailableError, UnauthenticatedError } from '../errors.js';
import type { SecurityScheme } from '../openapi/document.js';
import type { BearerVerifier, Principal } from '../../kernel/identity.js';

export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer +([A-Za-z0-9._~+/=-]{1,512})$/i.exec(header.trim());
  return match?.[1];
}

/** Compares two secrets in time that depends on neither. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

async function principalFor(
  scheme: SecurityScheme,
  req: Request,
  deps: { db: Knex; config: Config; verifyBearer: BearerVerifier },
): Promise<Principal> {
  if (scheme === 'bearerAuth') {
    const token = bearerToken(req);
    const principal = token === undefined ? undefined : await deps.verifyBearer(deps.db, token);
    if (!principal) throw new UnauthenticatedError();
    return principal;
  }
  const integration = scheme === 'etsmToken' ? 'etsm' : 'mdm';
  const expected = integration === 'etsm' ? deps.config.etsmToken : deps.config.mdmToken;
  if (expected === undefined) throw new ServiceUnavailableError(`The ${integration} integration is not configured.`);
  const token = bearerToken(req);
  if (token === undefined || !secretsEqual(token, expected)) throw new UnauthenticatedError();
  return { kind: 'integration', integration };
}

export function authenticate(deps: { db: Knex; config: Config; verifyBearer: BearerVerifier }): RequestHandler {
  return async (req, _res, next) => {
    const op = req.operation!;
    const alternatives = op.security.filter((alternative) => alternative.length > 0);
    if (alternatives.length === 0) return next();
    const anonymousAllowed = alternatives.length < op.security.length;
    if (anonymousAllowed && req.headers.authorization === undefined) return next();
    let failure: unknown;
    for (const [scheme] of alternatives) {
      try {
        req.auth = { principal: await principalFor(scheme!, req, deps) };
        return next();
      } catch (error) {
        failure ??= error;
      }
    }
    throw failure;
  };
}
