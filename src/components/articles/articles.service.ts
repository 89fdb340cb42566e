/**
 * Articles: the master data of client companies. Every write validates against the provider's unit
 * catalogue, keeps `article_code` unique per client, and records its event in its transaction.
 */
import type { Knex } from 'knex';
import { changedFields } from '../../kernel/changes.js';
import { quoted } from '../../kernel/text.js';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { PageRequest } from '../../kernel/paging.js';
import { codeTaken, type Paged } from '../../platform/db/queries.js';
import { InputError, NotFoundError } from '../../platform/errors.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { inputTime } from '../../platform/input-time.js';
import { companyScope, type TenantContext } from '../../platform/tenant-context.js';
import { requireUnit, type UnitLookup } from '../reference/reference.service.js';
import * as repository from './articles.repository.js';
import type { Article, ArticleFields, ArticleRow } from './articles.repository.js';
import { codeTakenMessage, idTakenMessage, withKeysAsFieldErrors, writeDocument } from '../documents/document-writes.js';
import { recordEvent } from '../../platform/outbox.js';
import { integerOnlyField, integerOnlyOf, unitRuleProblems, type ArticleUsage, type UnitRuleChange } from './articles.rules.js';
import { Problems } from '../../platform/problems.js';
import { nonZeroBalancesOf } from '../stock/stock.service.js';
import { openLinesOfArticle as openPurchaseOrderLines } from '../purchase-orders/purchase-orders.service.js';
import { openLinesOfArticle as openSalesOrderLines } from '../sales-orders/sales-orders.service.js';

export type { Article };
type ArticlePatch = Schema<'ArticlePatch'>;

const messages = {
  notFound: (id: number) => `Article ${id} was not found.`,
  codeNotFound: (code: string) => `Article ${quoted(code)} was not found.`,
  ambiguousCode: (code: string) => `Article ${code} exists for more than one client in scope; send X-Company-Id of the client.`,
  codeTaken: codeTakenMessage('article_code'),
  idTaken: idTakenMessage('id'),
  idFixed: (id: number) => `The id cannot change; this article's id is ${id}.`,
  clientFixed: (id: number) => `The client_3pl_id cannot change; this article belongs to client ${id}.`,
  clientNotInScope: 'The client_3pl_id must be a client company in scope.',
  clientRequired: 'The client_3pl_id field is required when X-Company-Id is a provider.',
};


/** The client the new article belongs to: the one named, which must be in scope, or the client in scope. */
export function clientFor(scope: Extract<CompanyScope, { kind: 'company' }>, requested: number | undefined): number {
  if (requested !== undefined) {
    if (!scope.clientIds.includes(requested)) throw InputError.field('client_3pl_id', messages.clientNotInScope);
    return requested;
  }
  if (scope.companyType === 'client') return scope.companyId;
  throw InputError.field('client_3pl_id', messages.clientRequired);
}

/**
 * Runs an article write as every resource write runs (documents/document-writes.ts): the article
 * as it then is, `type` recorded when the write changed it, a lost race on the id or the code as
 * the 422 the up-front checks give.
 */
function writeArticle(
  ctx: TenantContext,
  type: 'article.created' | 'article.updated',
  work: (tx: Knex.Transaction) => Promise<number | { id: number; changed: boolean }>,
): Promise<Article> {
  return writeDocument(ctx.db, {
    type,
    codeField: 'article_code',
    idField: 'id',
    work,
    reread: async (tx, id) => repository.toArticle((await repository.findArticle(tx, ctx.scope, id))!),
    companyOf: (article) => article.client_3pl_id,
  });
}

export function listArticles(ctx: TenantContext, search: string | undefined, page: PageRequest): Promise<Paged<Article>> {
  return repository.listArticles(ctx.db, ctx.scope, search, page);
}

/** Articles after the last id seen, for the GraphQL query. */
export function articlesAfter(ctx: TenantContext, options: { after?: number; search?: string; limit: number }): Promise<Article[]> {
  return repository.articlesAfter(ctx.db, ctx.scope, options);
}

/** The article, or undefined when it is not in scope. */
export async function findArticle(ctx: TenantContext, id: number): Promise<Article | undefined> {
  const row = await repository.findArticle(ctx.db, ctx.scope, id);
  return row ? repository.toArticle(row) : undefined;
}

async function requireArticle(ctx: TenantContext, id: number): Promise<ArticleRow> {
  const row = await repository.findArticle(ctx.db, ctx.scope, id);
  if (!row) throw new NotFoundError(messages.notFound(id));
  return row;
}

export async function getArticle(ctx: TenantContext, id: number): Promise<Article> {
  return repository.toArticle(await requireArticle(ctx, id));
}

/**
 * How a create runs as an item of a bulk request (articles.bulk.ts), in the request's transaction:
 * units come from the catalogue read once, and the code is not looked up first (the request knows
 * its client had no article of it when it began; one another request committed since is refused
 * by the unique index, as the same 422 on article_code). No savepoint: every check comes before
 * the first write, a refused insert is undone alone by the database, and what stays of the item
 * then is a service id used up, which no client sees.
 */
export interface InBulk {
  unit: UnitLookup;
}

/**
 * Creates an article: its client, unit, id and code are checked, every problem answered at once;
 * the id and the code in the transaction that writes it.
 */
export async function createArticle(ctx: TenantContext, body: Schema<'ArticleCreate'>, bulk?: InBulk): Promise<Article> {
  const scope = companyScope(ctx);
  const found = new Problems();
  const integerOnly = found.attempt(() => integerOnlyOf(body));
  const clientId = found.attempt(() => clientFor(scope, body.client_3pl_id));
  const unit = await found.collect(bulk ? bulk.unit(body.um3pl, 'um3pl') : requireUnit(ctx.db, scope.providerId, body.um3pl, 'um3pl'));
  const insert = async (tx: Knex.Transaction, codeChecked: boolean): Promise<ArticleRow> => {
    const problems = found.copy();
    if (body.id !== undefined && (await repository.idTaken(tx, body.id))) problems.add('id', messages.idTaken);
    if (!codeChecked && clientId !== undefined && (await codeTaken(tx, 'articles', 'article_code', clientId, body.article_code))) problems.add('article_code', messages.codeTaken);
    problems.throwIfAny();
    return repository.insertArticle(tx, {
      ...(body.id !== undefined ? { id: body.id } : {}),
      company_id: clientId!,
      article_code: body.article_code,
      name: body.name ?? null,
      description: body.description,
      um3pl: unit!.code,
      integer_only_um3pl_quantity: integerOnly ?? false,
      lot_tracked: body.lot_tracked ?? false,
      expiry_tracked: body.expiry_tracked ?? false,
      barcode: body.um3pl_barcode ?? null,
      active: body.active ?? true,
    });
  };
  if (!bulk) return writeArticle(ctx, 'article.created', async (tx) => (await insert(tx, false)).id);
  const tx = ctx.db as Knex.Transaction;
  const article = repository.toArticle(await withKeysAsFieldErrors({ codeField: 'article_code', idField: 'id' }, () => insert(tx, true)));
  await recordEvent(tx, { companyId: article.client_3pl_id, type: 'article.created', data: article });
  return article;
}

/** The names the client sent fields under, where they may differ from the field (aliases): field -> name sent. */
export type SentNames = Partial<Record<'um3pl' | 'integer_only_um3pl_quantity', string>>;

/** What of the article is in use (its stock, its lines on open documents), read in the caller's transaction. */
async function usageOf(tx: Knex.Transaction, articleId: number): Promise<ArticleUsage> {
  const [balances, purchases, sales] = await Promise.all([
    nonZeroBalancesOf(tx, articleId),
    openPurchaseOrderLines(tx, articleId),
    openSalesOrderLines(tx, articleId),
  ]);
  return { balances, openLines: [...purchases, ...sales] };
}

/** What the caller requires of the article as it is before the change (If-Match): throws to refuse it. */
export type Precondition = (current: Article) => void;

/**
 * Applies the changes that differ from the article; records `article.updated` only when something
 * changed. The article's row is locked first: a change of its unit or whole-number flag is checked
 * against its stock and open lines (articles.rules.ts) while no writer of its lines can proceed
 * (they lock it in share mode, document-lines.ts; stock writers do so through the movement's foreign
 * key on MySQL/MariaDB; SQLite runs one transaction at a time), so nothing slips in between.
 */
async function applyChanges(ctx: TenantContext, current: ArticleRow, next: Partial<ArticleFields>, sent: SentNames = {}, found = new Problems(), precondition?: Precondition): Promise<Article> {
  if (next.um3pl !== undefined) {
    next.um3pl = (await found.collect(requireUnit(ctx.db, companyScope(ctx).providerId, next.um3pl, sent.um3pl ?? 'um3pl')))?.code;
  }
  if (!found.any && Object.keys(changedFields(current, next)).length === 0) {
    const article = repository.toArticle(current);
    precondition?.(article);
    return article;
  }
  return writeArticle(ctx, 'article.updated', async (tx) => {
    const problems = found.copy();
    await repository.lockArticle(tx, current.id);
    const locked = (await repository.findArticle(tx, ctx.scope, current.id))!;
    // Under the lock: a write since the caller's read shows here, and none can come between.
    precondition?.(repository.toArticle(locked));
    const changes = changedFields(locked, next);
    const rule: UnitRuleChange = {
      unitField: changes.um3pl !== undefined ? (sent.um3pl ?? 'um3pl') : undefined,
      wholeOnlyField: changes.integer_only_um3pl_quantity === true ? (sent.integer_only_um3pl_quantity ?? 'integer_only_um3pl_quantity') : undefined,
      trackingFields: (['lot_tracked', 'expiry_tracked'] as const).filter((field) => changes[field] !== undefined),
    };
    if (rule.unitField !== undefined || rule.wholeOnlyField !== undefined || rule.trackingFields!.length > 0) {
      for (const [field, messages] of Object.entries(unitRuleProblems(locked.article_code, rule, await usageOf(tx, locked.id)))) {
        for (const message of messages) problems.add(field, message);
      }
    }
    if (changes.article_code !== undefined && (await codeTaken(tx, 'articles', 'article_code', locked.company_id, changes.article_code))) problems.add('article_code', messages.codeTaken);
    problems.throwIfAny();
    if (Object.keys(changes).length === 0) return { id: locked.id, changed: false };
    await repository.updateArticle(tx, locked.id, changes);
    return { id: locked.id, changed: true };
  });
}

/**
 * The full update: the create's fields, every one optional. `id` and `client_3pl_id` cannot change
 * (an article's identity and owner); sent with the article's own values they are accepted, so a
 * create body can be sent again as an update.
 */
export async function updateArticle(ctx: TenantContext, id: number, body: Schema<'ArticleUpdate'>, precondition?: Precondition): Promise<Article> {
  const current = await requireArticle(ctx, id);
  const problems = new Problems();
  if (body.id !== undefined && body.id !== current.id) problems.add('id', messages.idFixed(current.id));
  if (body.client_3pl_id !== undefined && body.client_3pl_id !== current.company_id) problems.add('client_3pl_id', messages.clientFixed(current.company_id));
  const integerOnly = problems.attempt(() => integerOnlyOf(body));
  return applyChanges(
    ctx,
    current,
    {
      article_code: body.article_code,
      name: body.name,
      description: body.description,
      um3pl: body.um3pl,
      integer_only_um3pl_quantity: integerOnly,
      lot_tracked: body.lot_tracked,
      expiry_tracked: body.expiry_tracked,
      barcode: body.um3pl_barcode,
      active: body.active,
    },
    { integer_only_um3pl_quantity: integerOnlyField(body) },
    problems,
    precondition,
  );
}

/**
 * `sent`: the names the fields came under, when an integration sent them by an alias (`uom` for
 * `um3pl`); `problems`: what the caller found wrong with the patch already (answered with the rest).
 */
export async function patchArticleByCode(ctx: TenantContext, code: string, patch: ArticlePatch, sent: SentNames = {}, problems = new Problems(), precondition?: Precondition): Promise<Article> {
  const found = await repository.findByCode(ctx.db, ctx.scope, code);
  if (found.length === 0) throw new NotFoundError(messages.codeNotFound(code));
  if (found.length > 1) throw InputError.field('X-Company-Id', messages.ambiguousCode(code));
  return applyChanges(ctx, found[0]!, {
    description: patch.description,
    name: patch.name,
    barcode: patch.barcode,
    um3pl: patch.um3pl,
    active: patch.active,
  }, sent, problems, precondition);
}

export async function syncArticles(
  ctx: TenantContext,
  query: { updated_since?: string; cursor?: number; per_page?: number },
): Promise<Schema<'ArticleSyncPage'>> {
  const since = inputTime(query.updated_since);
  const { rows, more } = await repository.syncPage(ctx.db, ctx.scope, { cursor: query.cursor ?? 0, since, limit: query.per_page ?? 100 });
  return { data: rows, meta: { next_cursor: more ? rows[rows.length - 1]!.id : null } };
}

/** The articles of one client by id, after the id `after`, for the master-data integration. */
export function listClientArticles(db: Knex, clientId: number, limit: number, after?: number): Promise<Article[]> {
  return repository.listForClient(db, clientId, limit, after);
}
