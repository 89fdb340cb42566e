/** Query helpers every repository shares: a page of rows with the total, a contains-search, a client's code taken. */
import type { Knex } from 'knex';
import { pageWindow, type PageRequest } from '../../kernel/paging.js';
import { caseFold, hasControlCharacter } from '../../kernel/text.js';
import { InputError } from '../errors.js';
import { engineOf, searchFoldCollation } from './database.js';
import { loweredColumnSql } from './text-fold.js';


export interface Paged<T> {
  rows: T[];
  total: number;
}

/**
 * One page of `query` (which must be ordered) and the count of all its rows: counted from `query`
 * itself, or from `countQuery` when the count can skip its joins (the same rows, fewer reads). The
 * two run at once on two connections, so on MySQL/MariaDB a write committing between them could
 * make the count disagree with the page (73 rows under a total of 72, or no next page while a row
 * follows): the page reads one row more than it shows, and the total is kept within what the page
 * saw (at least every row up to the one after the page; exactly up to its last row when none
 * follows).
 */
export async function paged<Row, T>(query: Knex.QueryBuilder, page: PageRequest, toItem: (row: Row) => T, countQuery?: Knex.QueryBuilder): Promise<Paged<T>> {
  const { limit, offset } = pageWindow(page);
  const [counted, rows] = await Promise.all([
    (countQuery ?? query.clone().clearSelect().clearOrder()).count({ total: '*' }).first() as Promise<{ total: number | string } | undefined>,
    query.clone().limit(limit + 1).offset(offset) as Promise<Row[]>,
  ]);
  const more = rows.length > limit;
  if (more) rows.length = limit;
  return { rows: rows.map(toItem), total: totalSeenBy(Number(counted?.total ?? 0), offset, rows.length, more) };
}

/** A count kept within what a page read at `offset` saw: `shown` rows, and whether one more followed. */
export function totalSeenBy(counted: number, offset: number, shown: number, more: boolean): number {
  if (more) return Math.max(counted, offset + shown + 1);
  if (shown > 0) return offset + shown;
  return Math.min(counted, offset);
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * The comparison of a search, the same on both engines: case folded (kernel/text.ts caseFold: `öl`
 * finds `ÖL-5L`, `οδος` finds `ΟΔΟΣ`), every other difference counts (`cafe` does not find `Café`;
 * one emoji does not find another). MySQL/MariaDB's LOWER folds through the collation that folds
 * as Unicode does (text-fold.ts: the columns' own left 792 letters as they were, ẞ among them) but
 * keeps a final sigma (ς), which caseFold makes σ as LOWER does Σ; the binary collation keeps the
 * column's own (case- and accent-insensitive, every emoji equal to every other) out of the match.
 * SQLite's LOWER folds ASCII only: a term beyond ASCII compares the column through the connection's case_fold, caseFold
 * itself (database.ts); an ASCII term can only meet the two letters beyond ASCII whose folded case
 * is ASCII (İ and the Kelvin sign), made ASCII first, and keeps the built-in LOWER (a search of
 * 20,000 articles: 8 ms against 35 through case_fold).
 */
function containsSql(engine: 'sqlite' | 'mysql', term: string, collation: string | undefined): string {
  if (engine === 'mysql') return `REPLACE(${loweredColumnSql(collation)}, 'ς', 'σ') LIKE ? COLLATE utf8mb4_bin ESCAPE '!'`;
  return ASCII.test(term) ? `LOWER(REPLACE(REPLACE(??, 'İ', 'I'), 'K', 'K')) LIKE ? ESCAPE '!'` : `case_fold(??) LIKE ? ESCAPE '!'`;
}

/**
 * Narrows `query` (of `db`), in place, to rows where any of `columns` contains `term`, ignoring
 * case on both engines (LIKE wildcards in the term match literally). In place, not answered: a
 * query builder is a thenable, and a promise resolved with one runs it. On MySQL/MariaDB a term beyond ASCII is
 * compared through the fold collation, asked of the server before the first such search; an
 * ASCII term meets only letters whose folded case is ASCII, which every collation's LOWER folds.
 */
export async function whereContains(db: Knex, query: Knex.QueryBuilder, columns: readonly string[], term: string | undefined): Promise<void> {
  if (term === undefined || term.trim() === '') return;
  // SQLite's LIKE ends a pattern at NUL: `search=%00` matched everything.
  if (hasControlCharacter(term)) throw InputError.field('search', 'The search field must not hold control characters.');
  const folded = caseFold(term.trim());
  const pattern = `%${folded.replace(/[!%_]/g, (c) => `!${c}`)}%`;
  const engine = engineOf(db);
  const collation = engine === 'mysql' && !ASCII.test(folded) ? await searchFoldCollation(db) : undefined;
  const sql = containsSql(engine, folded, collation);
  query.where((q) => {
    for (const column of columns) q.orWhereRaw(sql, [column, pattern]);
  });
}

/** The keyset page after `after` (the last id seen): ids above it, ascending, at most `limit`. */
export function afterId<T extends Knex.QueryBuilder>(query: T, after: number | undefined, limit: number, column = 'id'): T {
  if (after !== undefined) query.where(column, '>', after);
  return query.orderBy(column).limit(limit) as T;
}

/** Whether a client (`company_id`) already uses `code` in `column` of `table` (other than the row `exceptId`). */
export async function codeTaken(tx: Knex, table: string, column: string, clientId: number, code: string, exceptId?: number): Promise<boolean> {
  const query = tx(table).select('id').where({ company_id: clientId, [column]: code });
  if (exceptId !== undefined) query.whereNot('id', exceptId);
  return (await query.first()) !== undefined;
}

/**
 * `table` for a statement that names every column of its unique key `index` (a conditional UPDATE
 * of one balance), read through that index on MySQL/MariaDB. Their single-table UPDATE picks its
 * index by statistics, and on a small table (a new install, a client's first days) it took the
 * article or warehouse index instead: the statement then locked the other rows and gaps of that
 * article or warehouse, and writes of different articles deadlocked (503s under ordinary load).
 * SQLite's planner takes the unique key, and it runs one writing transaction at a time.
 */
export function byUniqueKey(tx: Knex, table: string, index: string): Knex.QueryBuilder {
  return throughIndex(tx, table, index);
}

/** `table` read through `index` on MySQL/MariaDB (FORCE INDEX), whatever its statistics say; SQLite's planner chooses. */
export function throughIndex(tx: Knex, table: string, index: string): Knex.QueryBuilder {
  return engineOf(tx) === 'mysql' ? tx.from(tx.raw('?? FORCE INDEX (??)', [table, index])) : tx(table);
}
