/** POST /api/auth/token and POST /api/auth/revoke. */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { issueToken, revokeToken } from './auth.service.js';

export const authHandlers = {
  createToken: async ({ deps, body }) => ({ status: 200, body: await issueToken(deps.db, body) }),

  revokeToken: async ({ deps, auth }) => {
    await revokeToken(deps.db, auth!.principal);
    if (auth!.principal.kind === 'user') await deps.authCache?.announce({ kind: 'token', tokenId: auth!.principal.tokenId });
    return { status: 200, body: { message: 'Token revoked.' } };
  },
} satisfies HandlerMap;
