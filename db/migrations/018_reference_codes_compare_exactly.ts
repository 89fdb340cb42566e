/**
 * Warehouse, unit and partner codes compare exactly on MySQL/MariaDB too. Their columns had their
 * tables' default collation (Knex creates tables in `utf8mb4`, whose default is
 * `utf8mb4_general_ci` on MariaDB, `utf8mb4_0900_ai_ci` on MySQL 8): the unique key of
 * (company_id, code) ignored accents (and MariaDB's took every emoji for one), so `WH-E1` was
 * refused beside `WH-É1` and `K😁` beside `K😀`, which SQLite, comparing bytes, took as two. Each code column
 * gets the binary collation that does not pad (`utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin`
 * on MySQL 8, as 016 gave the other codes), with its type and nullability as they are; the rule of
 * which codes are one code (ASCII letters in either case, kernel/text.ts sameCode) is the
 * service's, the same on both engines. No rows change. SQLite compares bytes already: nothing to
 * do there.
 *
 * Rolling back gives each column its table's default collation again (what it was created with).
 * It refuses, changing nothing, while a company has two codes that collation takes for one
 * (`WH-E1` and `WH-É1`, `K😀` and `K😁`, `kg` and `KG`): the message names them; rename or remove
 * one of each before rolling back.
 */
import type { Knex } from 'knex';
import { exactCollation, isMariaDb } from './016_codes_compare_exactly.js';

const TABLES = ['warehouses', 'units', 'partners'] as const;

interface CodeColumn {
  TABLE_NAME: string;
  COLUMN_TYPE: string;
  IS_NULLABLE: 'YES' | 'NO';
  TABLE_COLLATION: string;
}

async function codeColumns(knex: Knex): Promise<CodeColumn[]> {
  return knex('information_schema.COLUMNS as c')
    .join('information_schema.TABLES as t', function () {
      this.on('t.TABLE_SCHEMA', 'c.TABLE_SCHEMA').andOn('t.TABLE_NAME', 'c.TABLE_NAME');
    })
    .select('c.TABLE_NAME', 'c.COLUMN_TYPE', 'c.IS_NULLABLE', 't.TABLE_COLLATION')
    .whereRaw('c.TABLE_SCHEMA = DATABASE()')
    .whereIn('c.TABLE_NAME', [...TABLES])
    .where('c.COLUMN_NAME', 'code')
    .orderBy('c.TABLE_NAME');
}

function recollate(knex: Knex, column: CodeColumn, to: string): Knex.Raw {
  const nullability = column.IS_NULLABLE === 'YES' ? 'NULL' : 'NOT NULL';
  return knex.raw(`ALTER TABLE ?? MODIFY ?? ${column.COLUMN_TYPE} CHARACTER SET utf8mb4 COLLATE ${to} ${nullability}`, [column.TABLE_NAME, 'code']);
}

/** Each company's codes of the column that its table's collation takes for one, as `units of company 4: K😀, K😁`. */
async function twinsUnder(knex: Knex, column: CodeColumn): Promise<string[]> {
  const rows: Array<{ company_id: number; codes: string }> = await knex(column.TABLE_NAME)
    .select('company_id', knex.raw("GROUP_CONCAT(code ORDER BY id SEPARATOR ', ') AS codes"))
    .whereNotNull('code')
    .groupBy('company_id', knex.raw(`code COLLATE ${column.TABLE_COLLATION}`))
    .havingRaw('COUNT(*) > 1')
    .orderBy('company_id');
  return rows.map((row) => `${column.TABLE_NAME} of company ${row.company_id}: ${row.codes}`);
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  const exact = exactCollation(await isMariaDb(knex));
  for (const column of await codeColumns(knex)) await recollate(knex, column, exact);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  const columns = await codeColumns(knex);
  const twins = (await Promise.all(columns.map((column) => twinsUnder(knex, column)))).flat();
  if (twins.length > 0) {
    throw new Error(`018_reference_codes_compare_exactly cannot be rolled back: the collation before it takes these codes for one (${twins.join('; ')}); rename or remove one of each first.`);
  }
  for (const column of columns) await recollate(knex, column, column.TABLE_COLLATION);
}
