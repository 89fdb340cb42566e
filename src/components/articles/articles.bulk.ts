/**
 * POST /api/articles/bulk: each item upserted by article_code within its client (platform/bulk.ts
 * runs the items, each in a savepoint of the request's transaction).
 *
 * Create or update is decided inside that transaction: the client's article of the code is read
 * as committed now, and a create that loses the race for the code to another request (which
 * committed the same code in between) is undone and the item becomes an update of that article,
 * as it would have been a moment later.
 */
import type { Knex } from 'knex';
import { bulkWriter } from '../../platform/bulk.js';
import { inSavepoint } from '../../platform/db/transaction.js';
import { InputError } from '../../platform/errors.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { companyScope, type TenantContext } from '../../platform/tenant-context.js';
import * as repository from './articles.repository.js';
import { clientFor, createArticle, updateArticle, type Article } from './articles.service.js';

type Body = Schema<'ArticleCreate'>;

async function clientArticle(ctx: TenantContext, clientId: number, code: string): Promise<Article | undefined> {
  const row = (await repository.findByCode(ctx.db, ctx.scope, code)).find((r) => r.company_id === clientId);
  return row ? repository.toArticle(row) : undefined;
}

/** The article created, or undefined when another request took the code first (nothing written). */
async function createUnlessTaken(ctx: TenantContext, body: Body): Promise<Article | undefined> {
  try {
    return await inSavepoint(ctx.db as Knex.Transaction, (savepoint) => createArticle({ ...ctx, db: savepoint }, body));
  } catch (error) {
    if (error instanceof InputError && error.errors.article_code !== undefined) return undefined;
    throw error;
  }
}

/** Creates the article, or updates the client's article of that code with the fields given. */
async function upsert(ctx: TenantContext, body: Body) {
  const clientId = clientFor(companyScope(ctx), body.client_3pl_id);
  let existing = await clientArticle(ctx, clientId, body.article_code);
  if (!existing) {
    const created = await createUnlessTaken(ctx, body);
    if (created) return { status: 'created' as const, id: created.id };
    existing = (await clientArticle(ctx, clientId, body.article_code))!;
  }
  const after = await updateArticle(ctx, existing.id, body);
  return { status: after.updated_at === existing.updated_at ? ('unchanged' as const) : ('updated' as const), id: after.id };
}

export const bulkUpsertArticles = bulkWriter('ArticleCreate', upsert);
