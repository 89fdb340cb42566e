/** The article routes. */
import { pageRequestOf } from '../../kernel/paging.js';
import { pageOf } from '../../platform/http/pagination.js';
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { tenantContext } from '../../platform/tenant-context.js';
import * as articles from './articles.service.js';
import { bulkUpsertArticles } from './articles.bulk.js';
import type { Article } from './articles.repository.js';
import { entityTag, ifMatch } from '../../platform/http/entity-tag.js';

const articleName = (article: Article): string => `Article ${article.id}`;

/** An article's answer, with its ETag (what If-Match of its updates names). */
const withTag = (article: Article) => ({ status: 200 as const, body: { data: article }, headers: { ETag: entityTag(article) } });

export const articleHandlers = {
  listArticles: async (input) => {
    const page = pageRequestOf(input.query);
    return { status: 200, body: pageOf(input, page, await articles.listArticles(tenantContext(input), input.query.search, page)) };
  },

  createArticle: async (input) => ({ status: 201, body: { data: await articles.createArticle(tenantContext(input), input.body) } }),

  bulkUpsertArticles: async (input) => ({ status: 200, body: await bulkUpsertArticles(tenantContext(input), input.body.items) }),

  syncArticles: async (input) => ({ status: 200, body: await articles.syncArticles(tenantContext(input), input.query) }),

  getArticle: async (input) => withTag(await articles.getArticle(tenantContext(input), input.params.id)),

  updateArticle: async (input) =>
    withTag(await articles.updateArticle(tenantContext(input), input.params.id, input.body, ifMatch(input.request.headers['if-match'], articleName))),

  patchArticleByCode: async (input) =>
    withTag(await articles.patchArticleByCode(tenantContext(input), input.params.articleCode, input.body, {}, undefined, ifMatch(input.request.headers['if-match'], articleName))),
} satisfies HandlerMap;
