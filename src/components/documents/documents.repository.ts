/**
 * The SQL document lines share: the articles their lines name, read in the writer's transaction.
 * The articles table belongs to the articles component, which changes an article's unit or
 * whole-number flag only under an exclusive lock of its row (articles.repository.ts lockArticle);
 * the share lock taken here makes a line's writer and such a change wait for each other.
 */
import type { Knex } from 'knex';
import { engineOf } from '../../platform/db/database.js';

/** What a line needs of its article. */
export interface LineArticle {
  id: number;
  company_id: number;
  article_code: string;
  um3pl: string;
  integer_only_um3pl_quantity: boolean | number;
  lot_tracked: boolean | number;
  expiry_tracked: boolean | number;
  active: boolean | number;
}

/**
 * The articles of `ids` that belong to one of `clientIds`, by id; locked in share mode until the
 * transaction ends when `share` is set (MySQL/MariaDB; SQLite runs one writer at a time).
 */
export async function articlesOfLines(tx: Knex, clientIds: readonly number[], ids: readonly number[], options: { share?: boolean } = {}): Promise<Map<number, LineArticle>> {
  if (ids.length === 0 || clientIds.length === 0) return new Map();
  const query = tx('articles')
    .select('id', 'company_id', 'article_code', 'um3pl', 'integer_only_um3pl_quantity', 'lot_tracked', 'expiry_tracked', 'active')
    .whereIn('company_id', clientIds as number[])
    .whereIn('id', ids as number[])
    .orderBy('id');
  if (options.share && engineOf(tx) === 'mysql') query.forShare();
  const rows = (await query) as LineArticle[];
  return new Map(rows.map((r) => [r.id, r]));
}
