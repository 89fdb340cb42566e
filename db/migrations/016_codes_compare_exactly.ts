/**
 * Codes compare exactly on MySQL/MariaDB too. The codes, lots, tracking numbers and idempotency
 * keys were given `utf8mb4_bin` so that they compare as SQLite compares them, byte for byte; but
 * that collation pads: 'TS-CODE ' equalled 'TS-CODE', so a padded code was refused as taken, and a
 * by-code write or a filter (`lot=`, `tracking_number=`, `internal_code=`) answered for the code
 * without the spaces. Each such column gets the binary collation that does not pad
 * (`utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin` on MySQL 8), with its type, nullability and
 * default as they are. No rows change, and no two rows become equal: only rows the padded
 * comparison took for one are told apart. SQLite compares bytes already: nothing to do there.
 * Rolling it back fails (a duplicate key, nothing changed) once two codes differ only by trailing
 * spaces: the padded collation cannot hold both.
 */
import type { Knex } from 'knex';

const PADDED = 'utf8mb4_bin';

interface TextColumn {
  TABLE_NAME: string;
  COLUMN_NAME: string;
  COLUMN_TYPE: string;
  IS_NULLABLE: 'YES' | 'NO';
  COLUMN_DEFAULT: string | null;
}

export async function isMariaDb(knex: Knex): Promise<boolean> {
  const [rows] = (await knex.raw('SELECT VERSION() AS version')) as [Array<{ version: string }>];
  return /mariadb/i.test(rows[0]!.version);
}

export const exactCollation = (mariadb: boolean): string => (mariadb ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin');

/** The text columns of this database with collation `from`. */
async function columnsCollated(knex: Knex, from: string): Promise<TextColumn[]> {
  return knex('information_schema.COLUMNS')
    .select('TABLE_NAME', 'COLUMN_NAME', 'COLUMN_TYPE', 'IS_NULLABLE', 'COLUMN_DEFAULT')
    .whereRaw('TABLE_SCHEMA = DATABASE()')
    .where('COLLATION_NAME', from)
    .orderBy(['TABLE_NAME', 'COLUMN_NAME']);
}

/**
 * The column's DEFAULT clause: MariaDB reports a default as the SQL literal (`''`, or `NULL` for
 * none), MySQL as the bare value.
 */
function defaultClause(knex: Knex, column: TextColumn, mariadb: boolean): string {
  const value = column.COLUMN_DEFAULT;
  if (value === null || (mariadb && value === 'NULL')) return '';
  return mariadb ? ` DEFAULT ${value}` : knex.raw(' DEFAULT ?', [value]).toQuery();
}

/** Every column of collation `from` gets `to`, one ALTER TABLE per table. */
async function recollate(knex: Knex, from: string, to: string, mariadb: boolean): Promise<void> {
  const byTable = new Map<string, string[]>();
  for (const column of await columnsCollated(knex, from)) {
    const nullability = column.IS_NULLABLE === 'YES' ? 'NULL' : 'NOT NULL';
    const clause = knex
      .raw(`MODIFY ?? ${column.COLUMN_TYPE} CHARACTER SET utf8mb4 COLLATE ${to} ${nullability}`, [column.COLUMN_NAME])
      .toQuery();
    byTable.set(column.TABLE_NAME, [...(byTable.get(column.TABLE_NAME) ?? []), clause + defaultClause(knex, column, mariadb)]);
  }
  for (const [table, clauses] of byTable) await knex.raw(`ALTER TABLE ?? ${clauses.join(', ')}`, [table]);
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  const mariadb = await isMariaDb(knex);
  await recollate(knex, PADDED, exactCollation(mariadb), mariadb);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  const mariadb = await isMariaDb(knex);
  await recollate(knex, exactCollation(mariadb), PADDED, mariadb);
}
