/**
 * The master-data (mdm) integration: an ERP's master-data system keeps articles in step. Its field
 * aliases come from the document (`x-alias-of` on MdmArticlePatch), so sync-fields and the
 * partial update can never disagree.
 */
import type { Knex } from 'knex';
import { modulesRequired } from '../../kernel/access.js';
import { ALL_COMPANIES } from '../../kernel/company-scope.js';
import { ForbiddenError } from '../../platform/errors.js';
import { Problems } from '../../platform/problems.js';
import { readDocument } from '../../platform/openapi/document.js';
import type { Principal } from '../../kernel/identity.js';
import type { Schema } from '../../platform/openapi/schemas.js';
import type { TenantContext } from '../../platform/tenant-context.js';
import { activeModules } from '../auth/access.service.js';
import { listClientArticles, patchArticleByCode, type Article } from '../articles/articles.service.js';
import { getClient } from '../reference/reference.service.js';

type MdmPatch = Schema<'MdmArticlePatch'>;
type ArticlePatch = Schema<'ArticlePatch'>;

let cached: Schema<'MdmSyncFields'> | undefined;

/** The fields the integration may set and their aliases (alias -> field), read from the document. */
export function syncFields(): Schema<'MdmSyncFields'> {
  if (!cached) {
    const schemas = (readDocument().components as { schemas: Record<string, { properties: Record<string, { 'x-alias-of'?: string }> }> }).schemas;
    const properties = Object.entries(schemas.MdmArticlePatch!.properties);
    cached = {
      fields: properties.filter(([, p]) => p['x-alias-of'] === undefined).map(([name]) => name),
      aliases: Object.fromEntries(properties.filter(([, p]) => p['x-alias-of'] !== undefined).map(([name, p]) => [name, p['x-alias-of']!])),
    };
  }
  return cached;
}

/**
 * The patch with every alias replaced by its field, and the name each field was sent under. A
 * field and an alias that disagree are a problem on the alias (every such pair is gathered in
 * `problems`), and the field they disagree on is left out of the patch.
 */
export function resolveAliases(body: MdmPatch): { patch: ArticlePatch; sent: Record<string, string>; problems: Problems } {
  const { aliases } = syncFields();
  const problems = new Problems();
  const patch: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  const conflicting = new Set<string>();
  for (const [key, value] of Object.entries(body)) {
    const field = aliases[key] ?? key;
    if (field in patch && patch[field] !== value) {
      const earlier = from[field]!;
      const alias = aliases[key] !== undefined ? key : earlier;
      const other = alias === key ? earlier : key;
      problems.add(alias, `The ${alias} field and the ${other} field both set ${field}, with different values.`);
      conflicting.add(field);
      continue;
    }
    patch[field] = value;
    from[field] ??= key;
  }
  for (const field of conflicting) delete patch[field];
  return { patch: patch as ArticlePatch, sent: from, problems };
}

/**
 * The article partial update; an error on a field sent under an alias is keyed by the alias (`uom`,
 * not `um3pl`), and the aliases' conflicts come in the same 422 as the update's own problems.
 */
export function patchByCode(ctx: TenantContext, code: string, body: MdmPatch): Promise<Article> {
  const { patch, sent, problems } = resolveAliases(body);
  return patchArticleByCode(ctx, code, patch, { um3pl: sent.um3pl }, problems);
}

/** The articles of the client company in the path: 404 for one that is not a client, 403 when its modules are off. */
export async function clientArticles(db: Knex, principal: Principal, clientId: number, limit: number, after?: number): Promise<Article[]> {
  const client = await getClient({ db, scope: ALL_COMPANIES, principal, role: 'viewer' }, clientId);
  const active = await activeModules(db, client.id);
  for (const module of modulesRequired('articles')) {
    if (!active.has(module)) throw new ForbiddenError(`The ${module} module is not active for company ${client.name}.`);
  }
  return listClientArticles(db, client.id, limit, after);
}
