/**
 * What makes cached authentication stale, as instances tell each other: a token revoked, a user
 * whose tokens, memberships or roles changed, a company whose modules or clients changed, or
 * anything (`all`). Encoded as JSON on the Redis channel; a message this version does not
 * understand counts as `all`, the safe reading.
 */
export type AuthChange =
  | { readonly kind: 'token'; readonly tokenId: number }
  | { readonly kind: 'user'; readonly userId: number }
  | { readonly kind: 'company'; readonly companyId: number }
  | { readonly kind: 'all' };

export function encodeAuthChange(change: AuthChange): string {
  return JSON.stringify(change);
}

const ID_FIELD = { token: 'tokenId', user: 'userId', company: 'companyId' } as const;

export function decodeAuthChange(message: string): AuthChange {
  try {
    const parsed = JSON.parse(message) as { kind?: unknown } & Record<string, unknown>;
    if (parsed.kind === 'token' || parsed.kind === 'user' || parsed.kind === 'company') {
      const id = parsed[ID_FIELD[parsed.kind]];
      if (Number.isSafeInteger(id)) return { kind: parsed.kind, [ID_FIELD[parsed.kind]]: id } as AuthChange;
    }
  } catch {
    // not JSON: forget everything
  }
  return { kind: 'all' };
}
