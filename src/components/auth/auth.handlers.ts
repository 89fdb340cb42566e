/** POST /api/auth/token and POST /api/auth/revoke. */
import type { Config } from '../../config.js';
import { ConcurrencyLimit } from '../../platform/concurrency-limit.js';
import { ServiceUnavailableError } from '../../platform/errors.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { issueToken, revokeToken } from './auth.service.js';

/** The bound on password checks at once of each app (LOGIN_HASH_CONCURRENCY, LOGIN_HASH_QUEUE). */
const passwordChecks = new WeakMap<Config, ConcurrencyLimit>();

function passwordChecksOf(config: Config): ConcurrencyLimit {
  let checks = passwordChecks.get(config);
  if (!checks) {
    // Refused before its password was checked: the login limits give its count back.
    const full = () => new ServiceUnavailableError('Too many logins are being checked at once. Try again in 1 second.', 1, true);
    checks = new ConcurrencyLimit(config.loginHashConcurrency, config.loginHashQueue, full);
    passwordChecks.set(config, checks);
  }
  return checks;
}

export const authHandlers = {
  // A token is a credential: no cache on the way may keep it (RFC 6749, 5.1).
  createToken: async ({ deps, body }) => ({
    status: 200,
    headers: { 'Cache-Control': 'no-store' },
    body: await issueToken(deps.db, body, passwordChecksOf(deps.config)),
  }),

  revokeToken: async ({ deps, auth }) => {
    await revokeToken(deps.db, auth!.principal);
    if (auth!.principal.kind === 'user') await deps.authCache?.announce({ kind: 'token', tokenId: auth!.principal.tokenId });
    return { status: 200, body: { message: 'Token revoked.' } };
  },
} satisfies HandlerMap;
