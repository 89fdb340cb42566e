/** The stock ledger's invariant: every balance equals the sum of its movements, and no movements lack a balance. */
import type { Knex } from 'knex';

export async function ledgerMismatches(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable('stock_balances'))) return [];
  const sums = db('stock_movements')
    .select('company_id', 'warehouse_id', 'article_id', 'stock_type')
    .sum({ total: 'delta' })
    .groupBy('company_id', 'warehouse_id', 'article_id', 'stock_type')
    .as('m');
  const join = function (this: Knex.JoinClause) {
    this.on('m.company_id', 'b.company_id').andOn('m.warehouse_id', 'b.warehouse_id').andOn('m.article_id', 'b.article_id').andOn('m.stock_type', 'b.stock_type');
  };
  const balances: Array<{ id: number; quantity: number | string; total: number | string | null }> = await db('stock_balances as b')
    .leftJoin(sums, join)
    .select('b.id', 'b.quantity', 'm.total');
  const orphans: Array<{ article_id: number; total: number | string }> = await db
    .from(sums)
    .leftJoin('stock_balances as b', join)
    .whereNull('b.id')
    .whereNot('m.total', 0)
    .select('m.article_id', 'm.total');
  return [
    ...balances.filter((b) => Number(b.quantity) !== Number(b.total ?? 0)).map((b) => `balance ${b.id}: quantity ${b.quantity}, movements sum to ${b.total ?? 0}`),
    ...orphans.map((o) => `movements of article ${o.article_id} sum to ${o.total} without a balance`),
  ];
}
