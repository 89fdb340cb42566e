/**
 * The credentials that authenticated lately, which the failed-authentication ceiling lets through
 * (failed-auth-limit.ts). Each instance remembers them in memory, and with Redis also writes them
 * there, so that a credential that worked on any instance passes the gate on every instance. The
 * normal path costs no Redis round trip: an instance writes a credential to Redis when it first sees
 * it work, and again once its record is half a window old (the record lives a window and a half, so
 * it always covers the last window of use), and reads Redis only for an address over its ceiling
 * whose credential it does not know. A credential this instance had seen work and then saw refused
 * is forgotten here and in Redis (a revoked token that still passes the gate elsewhere is verified
 * there and refused anyway). A shared integration secret is recorded under its integration's name,
 * never under its digest: an unsalted hash of an operator-chosen secret is not left as a key name
 * for whoever can list Redis. While Redis does not answer, each instance knows only what it saw
 * itself, as without Redis. The record lives a window and a half, so another instance may let a
 * credential through the gate up to that long after it last worked (still verified as usual).
 */
import { LRUCache } from 'lru-cache';
import type { RedisCommand } from './rate-limit-store.js';

/** Credentials remembered per instance: a bound on its memory. */
const REMEMBERED_CREDENTIALS = 10_000;

export interface WorkingCredentials {
  /** Whether this instance saw the credential work within the window (no I/O). */
  knownHere(credential: string): boolean;
  /** Whether another instance saw it work lately (one Redis read, when there is Redis; ask knownHere first). */
  knownAnywhere(credential: string): Promise<boolean>;
  /** The credential authenticated. */
  worked(credential: string): void;
  /** The credential was refused. */
  refused(credential: string): void;
}

/** `integrations`: the shared secrets' digests with their integration's name (rate-limit.ts). */
export function workingCredentials(options: {
  windowMs: number;
  redisCommand?: RedisCommand;
  redisPrefix?: string;
  integrations?: ReadonlyMap<string, string>;
}): WorkingCredentials {
  const { windowMs, redisCommand } = options;
  /** Each credential with the time this instance last wrote it to Redis. */
  const here = new LRUCache<string, number>({ max: REMEMBERED_CREDENTIALS, ttl: windowMs });
  const key = (credential: string): string => {
    const integration = options.integrations?.get(credential);
    return `${options.redisPrefix ?? 'tpl'}:rl:working:${integration === undefined ? credential : `integration:${integration}`}`;
  };
  const send = (args: string[]): void => {
    // Best effort: without the record, another instance only waits for the window as without Redis.
    if (redisCommand) void redisCommand(args).catch(() => undefined);
  };
  return {
    knownHere: (credential) => here.has(credential),
    async knownAnywhere(credential) {
      if (!redisCommand) return false;
      // A Redis that does not answer knows nothing: the address waits for its window.
      const reply = await redisCommand(['EXISTS', key(credential)]).catch(() => 0);
      return Number(reply) > 0;
    },
    worked(credential) {
      const now = Date.now();
      const written = here.get(credential);
      if (written === undefined || now - written >= windowMs / 2) {
        send(['SET', key(credential), '1', 'PX', String(Math.ceil(windowMs * 1.5))]);
        here.set(credential, now);
      } else {
        // Kept for another window from this success; its Redis record is still fresh enough.
        here.set(credential, written);
      }
    },
    refused(credential) {
      // Only a credential this instance had seen work has a record of its making to take back: a
      // flood of invented tokens costs no Redis write here.
      if (here.delete(credential)) send(['DEL', key(credential)]);
    },
  };
}
