/**
 * POST /api/articles/bulk: each item upserted by article_code within its client (platform/bulk.ts
 * runs the items in one transaction that reads committed data).
 *
 * The request first reads which of its codes its clients have articles of, and the provider's
 * units. An item whose code its client did not have is created at once, without looking the code
 * up again and without a savepoint (createArticle's bulk mode). Should another request have
 * committed the same code since, the unique index refuses the insert and the item becomes an
 * update of that article, as it would have been a moment later. An item whose code is known (or
 * was created by an earlier item of the request) reads the client's article as committed now and
 * updates it (or creates it, when it has gone since), in a savepoint.
 */
import { bulkWriter, type BulkContext } from '../../platform/bulk.js';
import { inSavepoint } from '../../platform/db/transaction.js';
import { InputError } from '../../platform/errors.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import { companyScope } from '../../platform/tenant-context.js';
import { unitLookup, type UnitLookup } from '../reference/reference.service.js';
import * as repository from './articles.repository.js';
import { clientFor, createArticle, updateArticle, type Article } from './articles.service.js';

type Body = Schema<'ArticleCreate'>;

interface Batch {
  /** `client id, code` of the articles the clients have (keyOf). */
  known: Set<string>;
  unit: UnitLookup;
}

const keyOf = (clientId: number, code: string): string => `${clientId}\n${code}`;

/** The codes the items' clients have articles of, and the unit catalogue. */
async function prepare(ctx: BulkContext, items: readonly Body[]): Promise<Batch> {
  const scope = companyScope(ctx);
  const named = new Set(items.map((item) => item.client_3pl_id ?? scope.companyId));
  const clientIds = scope.clientIds.filter((id) => named.has(id));
  const rows = await repository.existingCodes(ctx.db, clientIds, [...new Set(items.map((item) => item.article_code))]);
  return { known: new Set(rows.map((row) => keyOf(row.company_id, row.article_code))), unit: await unitLookup(ctx.db, scope.providerId) };
}

async function clientArticle(ctx: BulkContext, clientId: number, code: string): Promise<Article | undefined> {
  const row = (await repository.findByCode(ctx.db, ctx.scope, code)).find((r) => r.company_id === clientId);
  return row ? repository.toArticle(row) : undefined;
}

/** The article created, or undefined when another request committed the code first (nothing written). */
async function createUnlessTaken(ctx: BulkContext, body: Body, batch?: Batch): Promise<Article | undefined> {
  try {
    return batch ? await createArticle(ctx, body, batch) : await inSavepoint(ctx.db, (savepoint) => createArticle({ ...ctx, db: savepoint }, body));
  } catch (error) {
    if (error instanceof InputError && error.errors.article_code !== undefined) return undefined;
    throw error;
  }
}

/** Updates the client's article of the code with the fields given, or creates it when it has gone. */
function upsertKnown(ctx: BulkContext, clientId: number, body: Body) {
  return inSavepoint(ctx.db, async (savepoint) => {
    const itemCtx = { ...ctx, db: savepoint };
    let existing = await clientArticle(itemCtx, clientId, body.article_code);
    if (!existing) {
      const created = await createUnlessTaken(itemCtx, body);
      if (created) return { status: 'created' as const, id: created.id };
      existing = (await clientArticle(itemCtx, clientId, body.article_code))!;
    }
    const after = await updateArticle(itemCtx, existing.id, body);
    return { status: after.updated_at === existing.updated_at ? ('unchanged' as const) : ('updated' as const), id: after.id };
  });
}

/** The item's client; when it has none it fails as a single create would, with every problem it has. */
async function clientOf(ctx: BulkContext, body: Body, batch: Batch): Promise<number> {
  try {
    return clientFor(companyScope(ctx), body.client_3pl_id);
  } catch (error) {
    // createArticle checks the client among the item's other fields and throws them together.
    if (error instanceof InputError) await createArticle(ctx, body, batch);
    throw error;
  }
}

async function upsert(ctx: BulkContext, body: Body, batch: Batch) {
  const clientId = await clientOf(ctx, body, batch);
  const key = keyOf(clientId, body.article_code);
  const created = batch.known.has(key) ? undefined : await createUnlessTaken(ctx, body, batch);
  batch.known.add(key);
  return created ? { status: 'created' as const, id: created.id } : upsertKnown(ctx, clientId, body);
}

export const bulkUpsertArticles = bulkWriter('ArticleCreate', { prepare, write: upsert });
