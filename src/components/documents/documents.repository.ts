/** The SQL every document type shares: whether a client already uses a document code. */
import type { Knex } from 'knex';

/** The tables whose rows carry a client's unique code, with the code's column. */
const codeColumns = {
  articles: 'article_code',
  purchase_orders: 'internal_code',
  sales_orders: 'internal_code',
  receptions: 'internal_code',
  returns: 'internal_code',
} as const;

export type CodedTable = keyof typeof codeColumns;

/** Whether `code` is taken among the client's rows of `table` (other than `exceptId`). */
export async function codeTaken(tx: Knex, table: CodedTable, clientId: number, code: string, exceptId?: number): Promise<boolean> {
  const query = tx(table).select('id').where({ company_id: clientId, [codeColumns[table]]: code });
  if (exceptId !== undefined) query.whereNot('id', exceptId);
  return (await query.first()) !== undefined;
}
