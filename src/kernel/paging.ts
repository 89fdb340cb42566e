/** Page arithmetic of the paginated envelope (Laravel's paginator shape). */

export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  per_page: number;
  to: number | null;
  total: number;
}

export function pageWindow({ page, perPage }: PageRequest): { limit: number; offset: number } {
  return { limit: perPage, offset: (page - 1) * perPage };
}

export function pageMeta({ page, perPage }: PageRequest, total: number, count: number): PageMeta {
  const from = count > 0 ? (page - 1) * perPage + 1 : null;
  return {
    current_page: page,
    from,
    last_page: Math.max(1, Math.ceil(total / perPage)),
    per_page: perPage,
    to: from === null ? null : from + count - 1,
    total,
  };
}

/** The page a list was asked for (the validator has applied the document's defaults). */
export function pageRequestOf(query: { page?: number; per_page?: number }, defaultPerPage = 25): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? defaultPerPage };
}
