/**
 * The stock changes of inventory control: a count, which sets a balance to what was found, and the
 * moves of a transfer, which take stock off some balances and put it on others, all or nothing.
 * Like every stock change they run in the caller's transaction, take balance rows in the one lock
 * order (stock.lock-order.ts), never take a balance below zero, and write the movements that
 * explain them and `stock.changed`.
 */
import type { Knex } from 'knex';
import { MAX_BALANCE, toQuantity } from '../../kernel/quantity.js';
import { baseOf, isTracked, lockKey, lowerAvailableTracked, reallocate, type Moved } from './stock.allocation.js';
import { insertMovement, recordChange, recordMovement, announceChange, type MovementRecord } from './stock.changes.js';
import { balanceKeyOf, inLockOrder } from './stock.lock-order.js';
import { balanceName } from './stock.messages.js';
import * as repository from './stock.repository.js';
import type { StockKey } from './stock.repository.js';

const LIMIT = MAX_BALANCE * 1000;

export interface StockCount extends StockKey, Omit<MovementRecord, 'delta'> {
  /** Thousandths found on hand. */
  counted: number;
  /** Refuse a count above what is on hand (a deactivated article's stock may only be written off). */
  onlyLower?: boolean;
}

/**
 * Sets a balance to a count. Its row is read with a lock (created at zero first when there is none
 * and the count is not zero), so nothing changes it between the read and the conditional update
 * that sets it: the movement's delta is exactly the count less what was on hand. A count equal to
 * the balance changes nothing and writes no movement. Answers what was on hand and the delta
 * (thousandths); not ok, changing nothing, when `onlyLower` refuses a count above what is on hand.
 */
export async function countStock(tx: Knex.Transaction, count: StockCount): Promise<{ ok: true; before: number; delta: number } | { ok: false; before: number }> {
  const tracked = await isTracked(tx, count);
  if (tracked) await lockKey(tx, count);
  let held = await repository.lockBalance(tx, count);
  if (!held && count.counted === 0) return { ok: true, before: 0, delta: 0 };
  if (!held) {
    await repository.ensureBalance(tx, count);
    held = (await repository.lockBalance(tx, count))!;
  }
  const delta = count.counted - held.quantity;
  if (delta > 0 && count.onlyLower) return { ok: false, before: held.quantity };
  if (delta === 0) return { ok: true, before: held.quantity, delta };
  if (!(await repository.setBalance(tx, count, count.counted, held.quantity))) throw new Error('A counted balance changed under its lock');
  const movement = { delta, cause: count.cause, document: count.document, userId: count.userId };
  if (!tracked) await recordChange(tx, count, movement);
  else await reallocate(tx, baseOf(count), count.document, { moved: { delta: new Map([[await recordMovement(tx, count, movement), delta]]), cause: count.cause } });
  return { ok: true, before: held.quantity, delta };
}

export interface StockMove extends StockKey {
  /** Thousandths; positive puts stock on the balance, negative takes it off. */
  delta: number;
  articleCode: string;
  /** The field a refusal of this move is reported on (`items.0.quantity_um3pl`). */
  field: string;
}

export interface StockMoveProblem {
  field: string;
  message: string;
}

interface Balance {
  id: string;
  key: StockKey;
  tracked: boolean;
  articleCode: string;
  net: number;
  moves: StockMove[];
  /** On a cycle of the document's moves: what leaves it must be there before anything comes back. */
  circular: boolean;
}

const outOf = (b: Balance): number => b.moves.reduce((sum, m) => sum + (m.delta < 0 ? -m.delta : 0), 0);
const intoOf = (b: Balance): number => b.moves.reduce((sum, m) => sum + (m.delta > 0 ? m.delta : 0), 0);

function notAvailable(b: Balance, held: { quantity: number; reserved: number } | undefined, moving: number): string {
  const quantity = held?.quantity ?? 0;
  const reserved = held?.reserved ?? 0;
  const where = balanceName({ ...b.key, articleCode: b.articleCode });
  return (
    `Not enough available ${where}: ${toQuantity(quantity)} on hand, ${toQuantity(reserved)} reserved by open sales orders, ` +
    `${toQuantity(Math.max(quantity - reserved, 0))} available, ${toQuantity(moving)} to move` +
    (b.circular ? ' (lines that bring stock back here from where this takes it do not count: it would go round before it was there).' : '.')
  );
}

function aboveLimit(b: Balance): string {
  return `Moving ${toQuantity(b.net)} would take the ${balanceName({ ...b.key, articleCode: b.articleCode })} above the most a stock balance holds on hand, ${MAX_BALANCE}.`;
}

/** The moves grouped by balance, each with its net change. */
function byBalance(moves: readonly StockMove[]): Balance[] {
  const balances = new Map<string, Balance>();
  for (const move of moves) {
    const id = balanceKeyOf(move);
    const key = { clientId: move.clientId, warehouseId: move.warehouseId, articleId: move.articleId, stockType: move.stockType, lot: move.lot ?? '', expiryDate: move.expiryDate ?? '', tracked: move.tracked };
    const balance = balances.get(id) ?? { id, key, tracked: false, articleCode: move.articleCode, net: 0, moves: [], circular: false };
    balance.net += move.delta;
    balance.moves.push(move);
    balances.set(id, balance);
  }
  return [...balances.values()];
}

/**
 * Marks the balances that lie on a cycle of the moves (`pairs`: each [from, to] a line takes stock
 * along): A to B and B to A, or A to B to C to A (Tarjan's strongly connected components).
 */
function markCircular(balances: readonly Balance[], pairs: ReadonlyArray<readonly [string, string]>): void {
  const next = new Map<string, string[]>();
  for (const [from, to] of pairs) next.set(from, [...(next.get(from) ?? []), to]);
  const byId = new Map(balances.map((b) => [b.id, b]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const visit = (id: string): void => {
    index.set(id, index.size);
    low.set(id, index.get(id)!);
    stack.push(id);
    for (const to of next.get(id) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(id, Math.min(low.get(id)!, low.get(to)!));
      } else if (stack.includes(to)) {
        low.set(id, Math.min(low.get(id)!, index.get(to)!));
      }
    }
    if (low.get(id) !== index.get(id)) return;
    const component = stack.splice(stack.indexOf(id));
    if (component.length > 1) for (const member of component) byId.get(member)!.circular = true;
  };
  for (const b of balances) if (!index.has(b.id)) visit(b.id);
}

/**
 * Changes one balance: by its net (stock a line brings may leave by another line: passed along),
 * or, on a cycle of the moves, first by what leaves it and then by what comes in (what comes back
 * round the cycle depends on what leaves, so it cannot pay for it). A problem per move it refuses.
 */
async function applyToBalance(tx: Knex.Transaction, b: Balance): Promise<StockMoveProblem[]> {
  if (b.tracked) await lockKey(tx, b.key);
  const lowering = b.circular ? outOf(b) : Math.max(-b.net, 0);
  const raising = b.circular ? intoOf(b) : Math.max(b.net, 0);
  const lowered = lowering === 0 || (b.tracked ? await lowerAvailableTracked(tx, b.key, lowering) : await repository.lowerAvailable(tx, b.key, lowering));
  if (!lowered) {
    const message = notAvailable(b, await repository.lockBalance(tx, b.key), lowering);
    return b.moves.filter((m) => m.delta < 0).map((m) => ({ field: m.field, message }));
  }
  if (raising > 0 && !(await repository.raiseBalance(tx, b.key, raising, LIMIT))) {
    return b.moves.filter((m) => m.delta > 0).map((m) => ({ field: m.field, message: aboveLimit(b) }));
  }
  if (lowering === 0 && raising === 0) {
    await repository.ensureBalance(tx, b.key);
    await repository.lockBalance(tx, b.key);
  }
  return [];
}

/**
 * Applies a document's moves (`pairs`: each line's [from, to] as indexes into `moves`): each balance
 * they touch changes once (applyToBalance), taking stock off only where that much is available (on
 * hand, not reserved by open sales orders), in lock order. Answers the problems (every move
 * refused); the caller must then roll back. Otherwise each move becomes a movement: per balance
 * those that put stock on come first, so no movement shows the balance below zero on its way to
 * where it ends (on a cycle, those that take stock off, which it held); and each balance whose
 * quantity changed records `stock.changed` with its net.
 */
export async function moveStock(
  tx: Knex.Transaction,
  moves: readonly StockMove[],
  movement: Omit<MovementRecord, 'delta'>,
  pairs: ReadonlyArray<readonly [number, number]> = [],
): Promise<StockMoveProblem[]> {
  const balances = inLockOrder(byBalance(moves), (b) => b.key).map(({ line }) => line);
  markCircular(balances, pairs.map(([from, to]) => [balanceKeyOf(moves[from]!), balanceKeyOf(moves[to]!)] as const));
  for (const balance of balances) balance.tracked = await isTracked(tx, balance.key);
  const problems: StockMoveProblem[] = [];
  for (const balance of balances) problems.push(...(await applyToBalance(tx, balance)));
  if (problems.length > 0) return problems;
  // Per key of an article that tracks lots or expiry dates: the rows that moved, announced by its reallocation.
  const tracked = new Map<string, { base: ReturnType<typeof baseOf>; moved: Moved }>();
  for (const balance of balances) {
    const { id, quantity: after } = (await repository.lockBalance(tx, balance.key))!;
    let running = after - balance.net;
    const putting = balance.moves.filter((m) => m.delta > 0);
    const taking = balance.moves.filter((m) => m.delta < 0);
    const ordered = balance.circular ? [...taking, ...putting] : [...putting, ...taking];
    for (const move of ordered) {
      running += move.delta;
      await insertMovement(tx, balance.key, { ...movement, delta: move.delta }, running);
    }
    if (balance.tracked) {
      const name = `${balance.key.clientId}|${balance.key.warehouseId}|${balance.key.articleId}|${balance.key.stockType}`;
      const key = tracked.get(name) ?? { base: baseOf(balance.key), moved: { delta: new Map(), cause: movement.cause } };
      if (balance.net !== 0) key.moved.delta.set(id, balance.net);
      tracked.set(name, key);
    } else if (balance.net !== 0) {
      await announceChange(tx, balance.key, { delta: balance.net, cause: movement.cause, document: movement.document });
    }
  }
  for (const { base, moved } of tracked.values()) await reallocate(tx, base, movement.document, { moved });
  return [];
}
