/** The stored lines of documents, read for their answers: each with its article's code, grouped by document. */
import type { Knex } from 'knex';

/** The rows of `table` whose `documentColumn` is one of `documentIds`, each with `article_code`, by document id in line order. */
export async function lineRowsByDocument<Row extends { article_code: string }>(
  tx: Knex,
  table: string,
  documentColumn: string,
  documentIds: readonly number[],
): Promise<Map<number, Row[]>> {
  const rows: Array<Row & Record<string, unknown>> = await tx(`${table} as i`)
    .join('articles as a', 'a.id', 'i.article_id')
    .select('i.*', 'a.article_code')
    .whereIn(`i.${documentColumn}`, documentIds as number[])
    .orderBy('i.id');
  const byDocument = new Map<number, Row[]>(documentIds.map((id) => [id, []]));
  for (const row of rows) byDocument.get(Number(row[documentColumn]))?.push(row);
  return byDocument;
}
