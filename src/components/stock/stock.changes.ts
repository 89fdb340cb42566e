/**
 * What every change of a balance writes beside it, in the same transaction: the ledger movement
 * that explains it (with the balance right after it, `quantity_after`) and the `stock.changed`
 * event (the stock row with its `delta`, `cause` and `document`).
 */
import type { Knex } from 'knex';
import { toQuantity } from '../../kernel/quantity.js';
import { recordEvent, type DomainEvent } from '../../platform/outbox.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import * as repository from './stock.repository.js';
import type { StockKey, StockLevel } from './stock.repository.js';

/** What changed a balance (`stock.changed`'s `cause`); every cause but `reservation` is also a movement's. */
export type StockChangeCause = Schema<'StockChangeCause'>;
export type MovementCause = Exclude<StockChangeCause, 'reservation'>;

/** The document a change belongs to, as the ledger keeps it (`sales_order`, 42). */
export interface StockDocumentRef {
  kind: string;
  id: number;
}

/** One movement of the ledger. */
export interface MovementRecord {
  /** Thousandths; positive raises, negative lowers. */
  delta: number;
  cause: MovementCause;
  document: StockDocumentRef;
  userId: number | null;
}

/** Writes a movement of `key` whose balance is `quantityAfter` thousandths right after it. */
export function insertMovement(tx: Knex.Transaction, key: StockKey, movement: MovementRecord, quantityAfter: number): Promise<void> {
  return repository.insertMovement(tx, key, {
    delta: movement.delta,
    quantityAfter,
    cause: movement.cause,
    documentKind: movement.document.kind,
    documentId: movement.document.id,
    userId: movement.userId,
  });
}

/** What a `stock.changed` recorded in this process says: its balance, its change (thousandths), cause and document. */
interface ChangeOfEvent {
  balanceId: number;
  delta: number;
  cause: StockChangeCause;
  document: StockDocumentRef | null;
}
const changeOfEvent = new WeakMap<DomainEvent, ChangeOfEvent>();

function stockChangedEvent(key: StockKey, level: StockLevel, change: ChangeOfEvent): DomainEvent {
  const shown = {
    delta: toQuantity(change.delta),
    cause: change.cause,
    document: change.document && { type: change.document.kind, id: change.document.id },
  };
  const event: DomainEvent = {
    companyId: key.clientId,
    type: 'stock.changed',
    dataAt: (time: string): Schema<'StockChange'> => ({ ...level, updated_at: time, ...shown }),
  };
  changeOfEvent.set(event, change);
  return event;
}

/**
 * Whether two changes of one balance by one document are one event: the same cause, or one of
 * them a reservation that moved (delta 0), which the other's event then carries. Answers the cause
 * the event keeps, or undefined.
 */
function mergedCause(earlier: ChangeOfEvent, change: ChangeOfEvent): StockChangeCause | undefined {
  if (earlier.balanceId !== change.balanceId || earlier.document?.kind !== change.document?.kind || earlier.document?.id !== change.document?.id) return undefined;
  if (earlier.cause === change.cause) return change.cause;
  if (change.cause === 'reservation' && change.delta === 0) return earlier.cause;
  if (earlier.cause === 'reservation' && earlier.delta === 0) return change.cause;
  return undefined;
}

/**
 * Records `stock.changed` of a balance as it now is (`level`) and answers it. The balance's
 * `updated_at`, in the event and stored, is the time the transaction's changes stand at. Changes
 * of one balance by one document are one event, the row after them and their deltas summed, as
 * long as no other change of that balance was announced in between: lines of the same cause, and
 * a reservation that a later line moved onto or off the row (a reception of a lot expiring sooner
 * takes over what an earlier line's lot had just been given). The last event of a row always
 * shows it as it is, and a write gives a row one event.
 */
async function announce(
  tx: Knex.Transaction,
  key: StockKey,
  level: StockLevel,
  what: { delta: number; cause: StockChangeCause; document: StockDocumentRef | null },
): Promise<StockLevel> {
  const change: ChangeOfEvent = { balanceId: level.id, ...what };
  const sameChange = (before: DomainEvent): DomainEvent | undefined => {
    const earlier = changeOfEvent.get(before);
    const cause = earlier && mergedCause(earlier, change);
    return cause ? stockChangedEvent(key, level, { ...change, cause, delta: earlier!.delta + change.delta }) : undefined;
  };
  await repository.stampBalanceAtCommit(tx, level.id);
  await recordEvent(tx, stockChangedEvent(key, level, change), { key: `stock_balance:${level.id}`, into: sameChange });
  return level;
}

/** After a balance moved on hand: its movement and `stock.changed`; answers the balance as it now is. */
export async function recordChange(tx: Knex.Transaction, key: StockKey, movement: MovementRecord): Promise<StockLevel> {
  const row = (await repository.findBalanceRow(tx, key))!;
  await insertMovement(tx, key, movement, Number(row.quantity));
  return announce(tx, key, repository.toStockLevel(row), movement);
}

/**
 * After a balance of an article that tracks lots or expiry dates moved on hand: its movement only,
 * answering the balance's id. Its `stock.changed` comes from the reallocation that follows (as
 * `moved`), with the reservation after it: announced first, it showed a state that never was
 * (a lot row backordered, reserved above what it holds).
 */
export async function recordMovement(tx: Knex.Transaction, key: StockKey, movement: MovementRecord): Promise<number> {
  const row = (await repository.findBalanceRow(tx, key))!;
  await insertMovement(tx, key, movement, Number(row.quantity));
  return Number(row.id);
}

/** `stock.changed` of a balance as it now is, for a change whose movements are written by the caller (or that moves nothing on hand). */
export async function announceChange(
  tx: Knex.Transaction,
  key: StockKey,
  what: { delta: number; cause: StockChangeCause; document: StockDocumentRef | null },
): Promise<StockLevel> {
  return announce(tx, key, (await repository.findBalance(tx, key))!, what);
}
