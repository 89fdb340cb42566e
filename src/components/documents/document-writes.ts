/**
 * The shape of every document write: one transaction that does the work, re-reads the document as
 * the answer, records its event when something changed, and turns a lost race on the client's
 * unique code (the database's unique index) into the same 422 the up-front check gives.
 */
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../platform/db/driver-errors.js';
import { inTransaction } from '../../platform/db/transaction.js';
import { InputError } from '../../platform/errors.js';
import { recordEvent, type EventType } from '../../platform/outbox.js';

export const codeTakenMessage = (field: string) => `The ${field} has already been taken for this client.`;

/** A unique violation from `work` becomes a 422 on `field` (the document's code). */
export async function mapCodeTaken<T>(field: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw InputError.field(field, codeTakenMessage(field));
    throw error;
  }
}

export interface DocumentWrite<T> {
  /** The event recorded when the write changed the document. */
  type: EventType;
  /** The field of the client's unique code (`internal_code`). */
  codeField: string;
  /** The write; a bare id means it changed the document. */
  work: (tx: Knex.Transaction) => Promise<number | { id: number; changed: boolean }>;
  /** The document as it now is, read in the same transaction. */
  reread: (tx: Knex.Transaction, id: number) => Promise<T>;
  /** The company whose event this is (the document's client). */
  companyOf: (document: T) => number;
}

/** Runs a document write (see the module's comment) and answers the document as it now is. */
export function writeDocument<T>(db: Knex, write: DocumentWrite<T>): Promise<T> {
  return mapCodeTaken(write.codeField, () =>
    inTransaction(db, async (tx) => {
      const done = await write.work(tx);
      const { id, changed } = typeof done === 'number' ? { id: done, changed: true } : done;
      const document = await write.reread(tx, id);
      if (changed) await recordEvent(tx, { companyId: write.companyOf(document), type: write.type, data: document });
      return document;
    }),
  );
}
