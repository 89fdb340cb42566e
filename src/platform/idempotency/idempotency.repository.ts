/** The idempotency_keys table. */
import type { Knex } from 'knex';
import { insertReturningId } from '../db/database.js';

export interface KeyRow {
  id: number;
  request_hash: string;
  state: 'processing' | 'completed';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export function insertClaim(
  db: Knex,
  row: { company_id: number; idempotency_key: string; request_hash: string; created_at: string; expires_at: string },
): Promise<number> {
  return insertReturningId(db, 'idempotency_keys', { ...row, state: 'processing' });
}

export async function findKey(db: Knex, companyId: number, key: string): Promise<KeyRow | undefined> {
  const row = await db('idempotency_keys')
    .select('id', 'request_hash', 'state', 'response_status', 'response_body', 'created_at', 'expires_at')
    .where({ company_id: companyId, idempotency_key: key })
    .first();
  return row ? { ...row, id: Number(row.id) } : undefined;
}

/** Takes over a claim whose request died; true when this caller won it. */
export async function takeOverClaim(db: Knex, id: number, seenCreatedAt: string, now: string): Promise<boolean> {
  const changed = await db('idempotency_keys')
    .where({ id, state: 'processing', created_at: seenCreatedAt })
    .update({ created_at: now });
  return changed === 1;
}

/** Forgets an expired key, unless a request renewed it since it was read. */
export async function deleteExpiredKey(db: Knex, id: number, seenExpiresAt: string): Promise<void> {
  await db('idempotency_keys').where({ id, expires_at: seenExpiresAt }).delete();
}

/** Gives up a claim that is still processing (a completed key is never given up). */
export async function releaseClaim(db: Knex, id: number, claimedAt: string): Promise<void> {
  await db('idempotency_keys').where({ id, state: 'processing', created_at: claimedAt }).delete();
}

/** Stores the response of the claim taken at `claimedAt`; false when that claim is no longer held. */
export async function completeKey(db: Knex, claim: { id: number; claimedAt: string }, status: number, body: string): Promise<boolean> {
  const changed = await db('idempotency_keys')
    .where({ id: claim.id, state: 'processing', created_at: claim.claimedAt })
    .update({ state: 'completed', response_status: status, response_body: body });
  return changed === 1;
}

export async function deleteExpired(db: Knex, now: string, batch = 1000): Promise<number> {
  const ids = (await db('idempotency_keys').select('id').where('expires_at', '<', now).limit(batch)).map((r) => r.id);
  return ids.length === 0 ? 0 : db('idempotency_keys').whereIn('id', ids).delete();
}
