/** What other components may read of articles inside their own transactions (document lines). */
export { findForClients as articlesForLines } from './articles.repository.js';
export type { ArticleRow } from './articles.repository.js';
