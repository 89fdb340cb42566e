/**
 * The shape of every write of a resource with a client's unique code (articles, purchase orders,
 * sales orders, receptions, returns): one transaction that does the work, re-reads the resource
 * as the answer, records its event when something changed, and turns a lost race on the client's
 * unique code (the database's unique index) into the same 422 the up-front check gives, and a
 * lost race on a client-chosen id (the primary key) into a 422 on `id`.
 */
import type { Knex } from 'knex';
import { isPrimaryKeyViolation, isUniqueViolation } from '../../platform/db/driver-errors.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { InputError } from '../../platform/errors.js';
import { recordEvent, type EventType } from '../../platform/outbox.js';

export const codeTakenMessage = (field: string) => `The ${field} has already been taken for this client.`;
export const idTakenMessage = (field: string) => `The ${field} has already been taken.`;

export interface DocumentWrite<T> {
  /** The event recorded when the write changed the resource. */
  type: EventType;
  /** The field of the client's unique code (`internal_code`, `article_code`). */
  codeField: string;
  /** The field of a client-chosen id, when the client may choose it (`id` of an article). */
  idField?: string;
  /** The write; a bare id means it changed the resource. */
  work: (tx: Knex.Transaction) => Promise<number | { id: number; changed: boolean }>;
  /** The resource as it now is, read in the same transaction. */
  reread: (tx: Knex.Transaction, id: number) => Promise<T>;
  /** The company whose event this is (the resource's client). */
  companyOf: (resource: T) => number;
}

/** A duplicate key from the database as the 422 of the field the client sent it in; anything else as it is. */
function asFieldError(write: Pick<DocumentWrite<unknown>, 'codeField' | 'idField'>, error: unknown): unknown {
  if (write.idField !== undefined && isPrimaryKeyViolation(error)) return InputError.field(write.idField, idTakenMessage(write.idField));
  if (isUniqueViolation(error)) return InputError.field(write.codeField, codeTakenMessage(write.codeField));
  return error;
}

/**
 * Runs `run`, turning a duplicate key it hits into the 422 of the field the client sent (for a
 * write that records several events itself, such as a shipment; others use writeDocument).
 */
export async function withKeysAsFieldErrors<T>(fields: Pick<DocumentWrite<unknown>, 'codeField' | 'idField'>, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asFieldError(fields, error);
  }
}

/** Runs a write (see the module's comment) and answers the resource as it now is. */
export function writeDocument<T>(db: Knex, write: DocumentWrite<T>): Promise<T> {
  return withKeysAsFieldErrors(write, () =>
    inTransaction(db, async (tx) => {
      const done = await write.work(tx);
      const { id, changed } = typeof done === 'number' ? { id: done, changed: true } : done;
      const resource = await write.reread(tx, id);
      if (changed) await recordEvent(tx, { companyId: write.companyOf(resource), type: write.type, data: resource });
      return resource;
    }),
  );
}
