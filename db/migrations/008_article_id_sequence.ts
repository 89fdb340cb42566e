/**
 * Article ids the service assigns come from a sequence of their own, `article_id_sequence`, that
 * an id a client chooses never moves. Before, both came from the AUTO_INCREMENT of `articles`
 * (AUTOINCREMENT on SQLite), which jumps past any id inserted explicitly: one company creating
 * article 2147483000 made every company's next article 2147483001 and soon pushed ids beyond a
 * 32-bit integer (GraphQL's Int, the document's `format: int32`).
 *
 * The sequence is a table whose only column is an AUTO_INCREMENT id: taking the next value is an
 * insert, which on MySQL/MariaDB holds no lock until commit (unlike a counter row, which would
 * make every article create wait for the one before it), and on SQLite is as serial as every write.
 * An id a client chooses goes straight into `articles` and never touches the sequence; when the
 * sequence later reaches a chosen id, the repository skips past it (articles.repository.ts).
 *
 * Existing data: where the service's own sequence stood is not recorded, so it is read from the
 * ids: the sequence continues after the highest id h with at least h/2 ids at or below it (the
 * service's dense run of ids, with the gaps that failed inserts leave; a chosen id far above it
 * does not count). Articles whose id is beyond 2147483647 (possible only through the old jump)
 * get a new id from the sequence, with every row that names them; nothing else changes.
 */
import type { Knex } from 'knex';

const MAX_ID = 2147483647;
const SEQUENCE = 'article_id_sequence';
/** Tables whose `article_id` names an article. */
const REFERENCES = ['purchase_order_items', 'reception_items', 'stock_balances', 'stock_movements', 'sales_order_items', 'return_items'];

function isMysql(knex: Knex): boolean {
  return knex.client.config.client === 'mysql2';
}

/** Inserts a row into the sequence (with `id`, or the next one) and answers its id. */
async function takeFromSequence(knex: Knex, id?: number): Promise<number> {
  const row = id === undefined ? {} : { id };
  if (isMysql(knex)) return Number(((await knex(SEQUENCE).insert(row)) as number[])[0]);
  const [inserted] = (await knex(SEQUENCE).insert(row).returning('id')) as Array<{ id: number }>;
  return Number(inserted!.id);
}

/** The end of the service's dense run of ids: the highest id h with at least h/2 ids at or below it. */
export function serviceRunEnd(sortedIds: readonly number[]): number {
  let end = 0;
  sortedIds.forEach((id, index) => {
    if ((index + 1) * 2 >= id) end = id;
  });
  return end;
}

async function taken(knex: Knex, id: number): Promise<boolean> {
  return (await knex('articles').select('id').where('id', id).first()) !== undefined;
}

/** The next id of the sequence that no article has (an id a client chose is skipped). */
async function nextFreeId(knex: Knex): Promise<number> {
  let id = await takeFromSequence(knex);
  while (await taken(knex, id)) id = await takeFromSequence(knex);
  if (id > MAX_ID) throw new Error(`No article id left at or below ${MAX_ID}`);
  return id;
}

/** Moves an article to `newId`: a copy under a placeholder code, its references, then the old row goes. */
async function renumber(knex: Knex, oldId: number, newId: number): Promise<void> {
  const row = (await knex('articles').where('id', oldId).first()) as Record<string, unknown>;
  await knex('articles').insert({ ...row, id: newId, article_code: `~renumbering-${oldId}` });
  for (const table of REFERENCES) await knex(table).where('article_id', oldId).update({ article_id: newId });
  await knex('articles').where('id', oldId).delete();
  await knex('articles').where('id', newId).update({ article_code: row.article_code });
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(SEQUENCE, (t) => {
    t.increments('id');
  });
  const ids = ((await knex('articles').select('id').orderBy('id')) as Array<{ id: number | string }>).map((r) => Number(r.id));
  const end = serviceRunEnd(ids.filter((id) => id <= MAX_ID));
  if (end > 0) await takeFromSequence(knex, end);
  for (const id of ids.filter((id) => id > MAX_ID)) await renumber(knex, id, await nextFreeId(knex));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(SEQUENCE);
}
