/** The Article type and the article queries of the GraphQL schema. */
import { builder } from '../../platform/graphql/builder.js';
import { oneById } from '../../platform/graphql/by-id.js';
import { afterArg, pageLimit, requireModule, searchArg } from '../../platform/graphql/context.js';
import { queryParameterMaxLength } from '../../platform/openapi/document.js';
import { entityTag } from '../../platform/http/entity-tag.js';
import type { Article } from './articles.repository.js';
import * as articles from './articles.service.js';

/** REST's rule for the same parameter (GET /api/articles?search=). */
const SEARCH_MAX_LENGTH = queryParameterMaxLength('listArticles', 'search');

export const ArticleType = builder.objectRef<Article>('Article').implement({
  description: 'An article of a client company.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    client_3pl_id: t.exposeInt('client_3pl_id', { description: 'The client company that owns the article.' }),
    article_code: t.exposeString('article_code'),
    name: t.exposeString('name', { nullable: true }),
    description: t.exposeString('description'),
    um3pl: t.exposeString('um3pl', { description: 'The unit of measure for handling in the warehouse.' }),
    integer_only_um3pl_quantity: t.exposeBoolean('integer_only_um3pl_quantity'),
    lot_tracked: t.exposeBoolean('lot_tracked', { description: 'Stock is kept per lot, and every inbound line names its lot.' }),
    expiry_tracked: t.exposeBoolean('expiry_tracked', { description: 'Stock is kept per expiry date, and sales orders take the earliest expiry first (FEFO).' }),
    barcode: t.exposeString('barcode', { nullable: true }),
    um3pl_barcode: t.exposeString('barcode', { nullable: true, description: 'The same value as `barcode`, as REST shows both keys.' }),
    active: t.exposeBoolean('active'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
    etag: t.string({
      description:
        "The article's ETag, as REST's GET /api/articles/{id} answers it uncompressed (compressed, REST adds the encoding: `\"<tag>-br\"`; If-Match takes either): send it as If-Match on a REST update to make it only while the article is still this version.",
      resolve: (article) => entityTag(article),
    }),
  }),
});

builder.queryFields((t) => ({
  articles: t.field({
    type: [ArticleType],
    description: 'Articles in scope by id; pass the last id seen as `after` for the next page. Needs the articles module.',
    args: {
      limit: t.arg.int({ description: 'Articles to return, 1 to 100 (default 25).' }),
      search: t.arg.string({ description: "Part of the code, name, description or barcode. Case is ignored (Unicode's too, so `öl` finds `ÖL-5L`); accents and every other character must match." }),
      after: t.arg.int({ description: 'The last article id seen; the page holds higher ids.' }),
    },
    resolve: (_root, args, ctx) => {
      requireModule(ctx, 'articles');
      return articles.articlesAfter(ctx.tenant, {
        after: afterArg(args.after),
        search: searchArg(args.search, SEARCH_MAX_LENGTH),
        limit: pageLimit(args.limit, 25, 100),
      });
    },
  }),
}));

oneById('article', { type: ArticleType, description: 'One article in scope, or null. Needs the articles module.', module: 'articles', find: articles.findArticle });
