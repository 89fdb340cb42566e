/**
 * Rows gathered for multi-row INSERTs, each statement within limits both engines take: at most
 * `maxRows` rows (SQLite refuses a compound SELECT of more than 500 terms, the form Knex gives a
 * multi-row insert there) and `maxBytes` of the rows' sizes (MariaDB refuses a statement over
 * max_allowed_packet, 16 MB by default; a row larger than the limit goes alone).
 */
import type { Knex } from 'knex';

export interface BatchLimits {
  maxRows: number;
  /** Of the sizes given with the rows (their large text, in bytes). */
  maxBytes: number;
}

export class InsertBatches<R> {
  private rows: R[] = [];
  private bytes = 0;

  constructor(private readonly limits: BatchLimits) {}

  /** Adds `row` of `size` bytes; answers the rows gathered before it when it does not fit with them (to be written first). */
  add(row: R, size = 0): R[] | undefined {
    const full = this.rows.length > 0 && (this.rows.length >= this.limits.maxRows || this.bytes + size > this.limits.maxBytes) ? this.take() : undefined;
    this.rows.push(row);
    this.bytes += size;
    return full;
  }

  /** The rows gathered and not yet taken (none: an empty array). */
  take(): R[] {
    const rows = this.rows;
    this.rows = [];
    this.bytes = 0;
    return rows;
  }
}

/** Inserts `rows` into `table` in as few statements as `limits` allow, in their order. */
export async function insertInBatches<R extends object>(tx: Knex, table: string, rows: readonly R[], limits: BatchLimits, sizeOf: (row: R) => number = () => 0): Promise<void> {
  const batches = new InsertBatches<R>(limits);
  for (const row of rows) {
    const full = batches.add(row, sizeOf(row));
    if (full) await tx(table).insert(full);
  }
  const last = batches.take();
  if (last.length > 0) await tx(table).insert(last);
}
