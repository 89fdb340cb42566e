/** The paginated envelope: `{ data, links: { first, last, prev, next }, meta }` with absolute links. */
import { pageMeta, type PageMeta, type PageRequest } from '../../kernel/paging.js';

export interface Page<T> {
  data: T[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: PageMeta & { path: string };
}

/** `url` is the request's path and query as sent; `appUrl` the configured application URL. */
export function pageEnvelope<T>(appUrl: string, url: string, request: PageRequest, data: T[], total: number): Page<T> {
  const parsed = new URL(url, 'http://placeholder');
  const pathname = parsed.pathname.length > 1 ? parsed.pathname.replace(/\/+$/, '') : parsed.pathname;
  const link = (page: number): string => {
    parsed.searchParams.set('page', String(page));
    return `${appUrl}${pathname}?${parsed.searchParams.toString()}`;
  };
  const meta = pageMeta(request, total, data.length);
  return {
    data,
    links: {
      first: link(1),
      last: link(meta.last_page),
      prev: request.page > 1 ? link(request.page - 1) : null,
      next: request.page < meta.last_page ? link(request.page + 1) : null,
    },
    meta: { ...meta, path: `${appUrl}${pathname}` },
  };
}

/** The envelope of one page of a list, for the request that asked for it. */
export function pageOf<T>(
  input: { deps: { config: { appUrl: string } }; request: { url: string } },
  request: PageRequest,
  result: { rows: T[]; total: number },
): Page<T> {
  return pageEnvelope(input.deps.config.appUrl, input.request.url, request, result.rows, result.total);
}
