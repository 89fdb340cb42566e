/**
 * Row builders for set-up data: the demo seed and the test factories build companies, users,
 * memberships, modules, warehouses, partners, units and articles with the components' own
 * repositories (the SQL of each lives there, once).
 */
import type { Knex } from 'knex';
import { insertArticle as insertArticleRow } from '../../src/components/articles/articles.repository.js';

export { insertCompany, setModules } from '../../src/components/companies/companies.repository.js';
export { insertUser } from '../../src/components/auth/auth.repository.js';
export { addMembership } from '../../src/components/auth/access.repository.js';
export { insertPartner, insertUnit, insertWarehouse } from '../../src/components/reference/reference.repository.js';

/** An article with the next id the service assigns (the sequence of articles.repository.ts). */
export async function insertArticle(
  db: Knex,
  row: {
    company_id: number;
    article_code: string;
    description: string;
    um3pl: string;
    name?: string | null;
    barcode?: string | null;
    integer_only_um3pl_quantity?: boolean;
    lot_tracked?: boolean;
    expiry_tracked?: boolean;
    active?: boolean;
  },
): Promise<number> {
  return (await insertArticleRow(db, { name: null, barcode: null, integer_only_um3pl_quantity: false, active: true, ...row })).id;
}
