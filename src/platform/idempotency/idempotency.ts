/**
 * Step 8: Idempotency-Key on operations marked x-idempotent. The key (per company) is claimed by
 * a unique insert before the work runs. The same key with the same request within 24 hours
 * answers the stored response with `Idempotent-Replayed: true` and does nothing; with another
 * request it is a 422; while the first is still running, a 409. Only a successful response is
 * stored, in the transaction of the work itself (see dispatch): the work is never kept without
 * its response, so a retry after a lost answer is a replay, never a second execution. A failure
 * releases the key, so the request can be retried.
 */
import { hash as digest } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import { epochMs, nowDb } from '../../kernel/time.js';
import { isRetryableTransactionError, isUniqueViolation } from '../db/driver-errors.js';
import { ConflictError, InputError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { AnyReply } from '../openapi/handler-types.js';
import { writeReply } from '../http/dispatch.js';
import * as keys from './idempotency.repository.js';

export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A claim this old is a request that died before finishing; another may take it over. */
const ABANDONED_AFTER_MS = 60_000;
/**
 * The Retry-After of a 409 for a key still in flight: most requests finish within a second, so a
 * claim younger than LONG_RUNNING_MS is retried in one. An older one is a long request or one whose
 * process died, which a retry takes over once the claim is ABANDONED_AFTER_MS old: the client backs
 * off as long as the claim has run (a long request is answered soon after it ends, a dead one
 * taken over in a few retries), never past the takeover, rather than spending a request a second
 * of its rate limit.
 */
const IN_FLIGHT_RETRY_SECONDS = 1;
const LONG_RUNNING_MS = 5_000;

/** The 409 of a key whose claim is `heldMs` old. */
function inFlight(heldMs: number): ConflictError {
  if (heldMs < LONG_RUNNING_MS) return new ConflictError(`A request with this ${HEADER} is still being processed; retry once it has finished.`, IN_FLIGHT_RETRY_SECONDS);
  const seconds = Math.max(1, Math.min(Math.ceil(heldMs / 1000), Math.ceil((ABANDONED_AFTER_MS - heldMs) / 1000)));
  return new ConflictError(
    `A request with this ${HEADER} has been processed for ${Math.floor(heldMs / 1000)} s: retry in ${seconds} s (if its process died, a retry takes it over once it is ${ABANDONED_AFTER_MS / 1000} s old).`,
    seconds,
  );
}
const HEADER = 'Idempotency-Key';

export interface IdempotencyClaim {
  /**
   * In the transaction of the request's work: stores a 2xx reply for replays, gives the key up
   * otherwise. Throws a 409 when another request took the claim over meanwhile (this one had
   * counted as abandoned), so that the transaction, and the work, is rolled back.
   */
  complete(tx: Knex.Transaction, reply: AnyReply): Promise<void>;
  /** After the work failed (and its transaction was rolled back). */
  release(): Promise<void>;
}

declare module 'express-serve-static-core' {
  interface Request {
    idempotency?: IdempotencyClaim;
  }
}

interface Held {
  id: number;
  /** The created_at this claim wrote: another request taking the claim over writes its own. */
  claimedAt: string;
}

/** `heldMs`: how old the claim in flight is (0 when not read). */
type Outcome = ({ kind: 'claimed' } & Held) | { kind: 'replay'; reply: AnyReply } | { kind: 'in-flight'; heldMs: number } | { kind: 'mismatch' };

function dbTime(ms: number): string {
  return nowDb(() => ms);
}

/** A fingerprint of the request: the operation, its path and its body with keys in a stable order. */
export function requestHash(operationId: string, path: string, body: unknown): string {
  const canonical = JSON.stringify(body ?? null, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
  return digest('sha256', `${operationId}\n${path}\n${canonical}`);
}

async function claim(db: Knex, companyId: number, key: string, hash: string, attempt = 0): Promise<Outcome> {
  const now = Date.now();
  const claimedAt = dbTime(now);
  try {
    const id = await keys.insertClaim(db, {
      company_id: companyId,
      idempotency_key: key,
      request_hash: hash,
      created_at: claimedAt,
      expires_at: dbTime(now + KEY_LIFETIME_MS),
    });
    return { kind: 'claimed', id, claimedAt };
  } catch (error) {
    // Claims of one key racing a request that releases it (its work failed) may deadlock on
    // MySQL/MariaDB: the victim's insert was undone alone, so it claims again (after 3 tries, the
    // key is busy: 409 with Retry-After, as for any request under way).
    if (isRetryableTransactionError(error)) return attempt > 2 ? { kind: 'in-flight', heldMs: 0 } : claim(db, companyId, key, hash, attempt + 1);
    if (!isUniqueViolation(error)) throw error;
  }
  const row = await keys.findKey(db, companyId, key);
  if (!row || row.expires_at < dbTime(now)) {
    if (attempt > 2) return { kind: 'in-flight', heldMs: 0 };
    if (row) await keys.deleteExpiredKey(db, row.id, row.expires_at);
    return claim(db, companyId, key, hash, attempt + 1);
  }
  if (row.request_hash !== hash) return { kind: 'mismatch' };
  if (row.state === 'completed') {
    return { kind: 'replay', reply: { status: row.response_status!, body: JSON.parse(row.response_body!) as unknown } };
  }
  if (row.created_at < dbTime(now - ABANDONED_AFTER_MS) && (await keys.takeOverClaim(db, row.id, row.created_at, claimedAt))) {
    return { kind: 'claimed', id: row.id, claimedAt };
  }
  return { kind: 'in-flight', heldMs: Math.max(0, now - epochMs(row.created_at)) };
}

export function idempotency(deps: { db: Knex; metrics?: Pick<Metrics, 'idempotency'> }): RequestHandler {
  /**
   * Claims of failed requests that could not be released either (the database had gone away).
   * They are released before the next claim, so that once the database is back a retry of the same
   * request is not answered 409 until the claim counts as abandoned.
   */
  const unreleased = new Set<Held>();
  const release = async (held: Held): Promise<void> => {
    unreleased.add(held);
    await keys.releaseClaim(deps.db, held.id, held.claimedAt);
    unreleased.delete(held);
  };
  return async (req, res, next) => {
    const op = req.operation!;
    const key = req.headers['idempotency-key'];
    if (!op.idempotent || typeof key !== 'string' || key === '') return next();
    for (const held of unreleased) await release(held);
    const scope = req.auth?.scope;
    const companyId = scope?.kind === 'company' ? scope.companyId : 0;
    const outcome = await claim(deps.db, companyId, key, requestHash(op.operationId, req.path, req.body));
    switch (outcome.kind) {
      case 'claimed': {
        const held: Held = { id: outcome.id, claimedAt: outcome.claimedAt };
        req.idempotency = {
          complete: async (tx, reply) => {
            if (reply.status < 200 || reply.status >= 300) return keys.releaseClaim(tx, held.id, held.claimedAt);
            if (!(await keys.completeKey(tx, held, reply.status, JSON.stringify(reply.body ?? null)))) {
              throw new ConflictError(`Another request with this ${HEADER} took it over while this one was processed; this one changed nothing.`);
            }
          },
          release: () => release(held),
        };
        return next();
      }
      case 'replay':
        deps.metrics?.idempotency('replayed');
        writeReply(res, { ...outcome.reply, headers: { 'Idempotent-Replayed': 'true' } });
        return;
      case 'in-flight':
        deps.metrics?.idempotency('conflict');
        throw inFlight(outcome.heldMs);
      case 'mismatch':
        deps.metrics?.idempotency('mismatch');
        throw new InputError({ [HEADER]: [`This ${HEADER} was already used with a different request.`] });
    }
  };
}

/** The scheduled job that forgets expired keys. */
export const pruneIdempotencyKeys = {
  name: 'prune-idempotency-keys',
  run: async (db: Knex): Promise<void> => {
    while ((await keys.deleteExpired(db, nowDb())) > 0);
  },
};
