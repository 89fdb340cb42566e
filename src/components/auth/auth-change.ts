/**
 * How instances tell each other what makes cached authentication stale (kernel/identity.ts
 * AuthChange): encoded as JSON on the Redis channel; a message this version does not
 * understand counts as `all`, the safe reading.
 */
import type { AuthChange } from '../../kernel/identity.js';

export type { AuthChange };

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
