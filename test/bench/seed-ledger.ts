/**
 * The benchmark's ledger: months of movements behind every stock balance, LEDGER_SLOTS per balance
 * (122,000 balances, lot rows of tracked articles among them: 1,220,000 movements), so
 * GET /api/stock/movements and GET /api/stock/as-of read a realistic volume. The movements of slot
 * s of every balance lie in the s-th of LEDGER_SLOTS equal stretches of LEDGER_DAYS ending a day
 * ago, inserted in time order (as they would have committed), each with the balance after it;
 * their deltas add up to the balance (each balance its own quantity, at least 5 units so that no
 * balance ever goes below zero). Feed places and horizons are given as the stamper would give them
 * to rows committed in that order.
 */
import type { Knex } from 'knex';
import { nowDb } from '../../src/kernel/time.js';

export const LEDGER_SLOTS = 10;
const LEDGER_DAYS = 180;
const DAY_MS = 86_400_000;
const CHUNK = 500;

export interface BalanceKey {
  company_id: number;
  warehouse_id: number;
  article_id: number;
  stock_type: string;
  /** '' for none (articles that track no lots). */
  lot: string;
  /** 'YYYY-MM-DD', '' for none. */
  expiry_date: string;
}

/** A balance as seeded: its key and what it holds at the end of the ledger (thousandths). */
export interface SeededBalance extends BalanceKey {
  quantity: number;
}

/** The delta of slot `slot` of the balance at `index`: they add up to `quantity` (thousandths). */
function deltaOf(slot: number, index: number, quantity: number): number {
  const step = 1000 * (1 + (index % 5));
  if (slot === 0) return quantity - step;
  return slot % 2 === 1 ? step : -step;
}

/** The first instant of the ledger's time span, and the length of one slot (ms). */
export function ledgerSpan(now = Date.now()): { startMs: number; slotMs: number } {
  const endMs = now - DAY_MS;
  const startMs = endMs - LEDGER_DAYS * DAY_MS;
  return { startMs, slotMs: (endMs - startMs) / LEDGER_SLOTS };
}

/** Inserts the ledger of `balances`, each adding up to its quantity; answers how many movements. */
export async function seedLedger(tx: Knex.Transaction, balances: readonly SeededBalance[]): Promise<number> {
  const { startMs, slotMs } = ledgerSpan();
  const after = new Array<number>(balances.length).fill(0);
  let seq = 0;
  let rows: object[] = [];
  const flush = async () => {
    if (rows.length > 0) await tx('stock_movements').insert(rows);
    rows = [];
  };
  for (let slot = 0; slot < LEDGER_SLOTS; slot++) {
    for (const [index, { quantity, ...key }] of balances.entries()) {
      const delta = deltaOf(slot, index, quantity);
      after[index]! += delta;
      const createdAt = nowDb(() => startMs + slot * slotMs + (index * slotMs) / balances.length);
      seq += 1;
      rows.push({
        ...key,
        delta,
        quantity_after: after[index],
        cause: slot === 0 ? 'reception' : 'adjustment',
        document_kind: slot === 0 ? 'reception' : 'adjustment',
        document_id: 0,
        user_id: null,
        created_at: createdAt,
        feed_seq: seq,
        feed_horizon: createdAt,
      });
      if (rows.length === CHUNK) await flush();
    }
  }
  await flush();
  await tx('feed_sequences').where('name', 'stock_movements').update({ last_seq: seq });
  return seq;
}
