/** Articles: SQL only, always within the company scope. */
import type { Knex } from 'knex';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { nowDb, toApiTime } from '../../kernel/time.js';
import { insertReturningId } from '../../platform/db/database.js';
import { isPrimaryKeyViolation } from '../../platform/db/driver-errors.js';
import { afterId, paged, whereContains, type Paged } from '../../platform/db/queries.js';
import { whereClientInScope } from '../../platform/db/scoping.js';
import type { Schema } from '../../platform/openapi/schemas.js';

export type Article = Schema<'Article'>;

export interface ArticleRow {
  id: number;
  company_id: number;
  article_code: string;
  name: string | null;
  description: string;
  um3pl: string;
  integer_only_um3pl_quantity: boolean | number;
  lot_tracked: boolean | number;
  expiry_tracked: boolean | number;
  barcode: string | null;
  active: boolean | number;
  created_at: string | Date;
  updated_at: string | Date;
}

/** The columns a write may set. */
export type ArticleFields = Omit<ArticleRow, 'id' | 'created_at' | 'updated_at'>;

export function toArticle(row: ArticleRow): Article {
  return {
    id: row.id,
    client_3pl_id: row.company_id,
    article_code: row.article_code,
    name: row.name,
    description: row.description,
    um3pl: row.um3pl,
    integer_only_um3pl_quantity: Boolean(row.integer_only_um3pl_quantity),
    lot_tracked: Boolean(row.lot_tracked),
    expiry_tracked: Boolean(row.expiry_tracked),
    um3pl_barcode: row.barcode,
    barcode: row.barcode,
    active: Boolean(row.active),
    created_at: toApiTime(row.created_at),
    updated_at: toApiTime(row.updated_at),
  };
}

const SEARCHED = ['article_code', 'name', 'description', 'barcode'];

function inScope(tx: Knex, scope: CompanyScope): Knex.QueryBuilder {
  return whereClientInScope(tx('articles').select('*'), scope, 'company_id');
}

export async function listArticles(tx: Knex, scope: CompanyScope, search: string | undefined, page: PageRequest): Promise<Paged<Article>> {
  const query = inScope(tx, scope);
  await whereContains(tx, query, SEARCHED, search);
  return paged(query.orderBy('id', 'desc'), page, toArticle);
}

/** Articles with ids above `after`, by id (the GraphQL keyset). */
export async function articlesAfter(
  tx: Knex,
  scope: CompanyScope,
  options: { after?: number; search?: string; limit: number },
): Promise<Article[]> {
  const query = inScope(tx, scope);
  await whereContains(tx, query, SEARCHED, options.search);
  const rows = (await afterId(query, options.after, options.limit)) as ArticleRow[];
  return rows.map(toArticle);
}

export async function findArticle(tx: Knex, scope: CompanyScope, id: number): Promise<ArticleRow | undefined> {
  return inScope(tx, scope).where('id', id).first();
}

/** The articles with this code in the scope (one per client at most). */
export async function findByCode(tx: Knex, scope: CompanyScope, code: string): Promise<ArticleRow[]> {
  return inScope(tx, scope).where('article_code', code).orderBy('id').limit(10);
}

/** Which of `codes` the clients already have articles of (exact codes), as `client id, code` pairs. */
export async function existingCodes(tx: Knex, clientIds: readonly number[], codes: readonly string[]): Promise<Array<{ company_id: number; article_code: string }>> {
  if (clientIds.length === 0 || codes.length === 0) return [];
  return tx('articles').select('company_id', 'article_code').whereIn('company_id', clientIds).whereIn('article_code', codes);
}

export async function idTaken(tx: Knex, id: number): Promise<boolean> {
  return (await tx('articles').select('id').where('id', id).first()) !== undefined;
}


/**
 * The ids the service assigns come from `article_id_sequence` (migration 008), which an id a
 * client chooses never moves: taking a value is an insert into it (no lock held until commit on
 * MySQL/MariaDB). When the sequence reaches ids clients chose, it jumps to the first free id after
 * them, and is moved past it by inserting that value into it: so it never walks a run of chosen
 * ids one by one, and never hands out a taken id.
 */
const SEQUENCE = 'article_id_sequence';

/** The first id after `from` that no article has (`from` is taken). */
async function firstFreeAfter(tx: Knex, from: number): Promise<number> {
  const row = (await tx('articles as a')
    .min({ last: 'a.id' })
    .where('a.id', '>=', from)
    .whereNotExists((q) => q.select(tx.raw('1')).from('articles as b').whereRaw('?? = ?? + 1', ['b.id', 'a.id']))
    .first()) as { last: number | string | null } | undefined;
  return Number(row?.last ?? from) + 1;
}

async function nextServiceId(tx: Knex): Promise<number> {
  const id = await insertReturningId(tx, SEQUENCE, {});
  if (!(await idTaken(tx, id))) return id;
  const free = await firstFreeAfter(tx, id);
  try {
    return await insertReturningId(tx, SEQUENCE, { id: free });
  } catch (error) {
    if (isPrimaryKeyViolation(error)) return nextServiceId(tx); // another create took that value meanwhile
    throw error;
  }
}

/** At most this many service ids are tried for one article (each lost only to a concurrent create taking it). */
const ATTEMPTS = 5;

/** Inserts an article with the id chosen (a taken one is a primary-key violation) or the next id of the service. */
export async function insertArticle(tx: Knex, fields: Omit<ArticleFields, 'lot_tracked' | 'expiry_tracked'> & Partial<Pick<ArticleFields, 'lot_tracked' | 'expiry_tracked'>> & { id?: number }): Promise<ArticleRow> {
  const now = nowDb();
  const insert = async (id: number): Promise<ArticleRow> => {
    await tx('articles').insert({ ...fields, id, created_at: now, updated_at: now });
    return (await tx('articles').where('id', id).first()) as ArticleRow;
  };
  if (fields.id !== undefined) return insert(fields.id);
  for (let attempt = 1; ; attempt++) {
    try {
      return await insert(await nextServiceId(tx));
    } catch (error) {
      // A client chose this id in a transaction that committed between the check and the insert.
      if (attempt >= ATTEMPTS || !isPrimaryKeyViolation(error)) throw error;
    }
  }
}

export async function updateArticle(tx: Knex, id: number, changes: Partial<ArticleFields>): Promise<ArticleRow> {
  await tx('articles').where('id', id).update({ ...changes, updated_at: nowDb() });
  return (await tx('articles').where('id', id).first()) as ArticleRow;
}

/**
 * One page of the keyset sync: ids above `cursor`, optionally updated at or after `since`, by id.
 * Reads one row more than the page to know whether another follows.
 */
export async function syncPage(
  tx: Knex,
  scope: CompanyScope,
  options: { cursor: number; since?: string; limit: number },
): Promise<{ rows: Article[]; more: boolean }> {
  const query = inScope(tx, scope).where('id', '>', options.cursor).orderBy('id').limit(options.limit + 1);
  if (options.since !== undefined) query.where('updated_at', '>=', options.since);
  const rows = (await query) as ArticleRow[];
  return { rows: rows.slice(0, options.limit).map(toArticle), more: rows.length > options.limit };
}

export async function listForClient(tx: Knex, clientId: number, limit: number, after = 0): Promise<Article[]> {
  const rows = (await tx('articles').select('*').where('company_id', clientId).where('id', '>', after).orderBy('id').limit(limit)) as ArticleRow[];
  return rows.map(toArticle);
}

/**
 * Locks the article's row for the rest of the transaction: writers of document lines, which read
 * their articles in share mode (documents/documents.repository.ts), wait.
 */
export async function lockArticle(tx: Knex, id: number): Promise<void> {
  await tx('articles').where('id', id).update({ id: tx.raw('??', ['id']) });
}
