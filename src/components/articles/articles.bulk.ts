/** POST /api/articles/bulk: each item upserted by article_code within its client (platform/bulk.ts runs the items). */
import { bulkWriter } from '../../platform/bulk.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { companyScope, type TenantContext } from '../../platform/tenant-context.js';
import * as repository from './articles.repository.js';
import { clientFor, createArticle, updateArticle } from './articles.service.js';

/** Creates the article, or updates the client's article of that code with the fields given. */
async function upsert(ctx: TenantContext, body: Schema<'ArticleCreate'>) {
  const clientId = clientFor(companyScope(ctx), body.client_3pl_id);
  const existing = (await repository.findByCode(ctx.db, ctx.scope, body.article_code)).find((row) => row.company_id === clientId);
  if (!existing) return { status: 'created' as const, id: (await createArticle(ctx, body)).id };
  const before = repository.toArticle(existing);
  const after = await updateArticle(ctx, existing.id, body);
  return { status: after.updated_at === before.updated_at ? ('unchanged' as const) : ('updated' as const), id: after.id };
}

export const bulkUpsertArticles = bulkWriter('ArticleCreate', upsert);
