/**
 * The tables a database holds and how many rows each has, on either engine (knex has no portable
 * way to list tables): what `rollback` names before it drops them.
 */
import type { Knex } from 'knex';
import { engineOf } from './database.js';

/** The names of the database's own tables (SQLite's internal ones and views excluded), sorted. */
export async function tableNames(db: Knex): Promise<string[]> {
  const rows: Array<{ name: string }> =
    engineOf(db) === 'mysql'
      ? await db('information_schema.TABLES').select('TABLE_NAME as name').whereRaw('TABLE_SCHEMA = DATABASE()').andWhere('TABLE_TYPE', 'BASE TABLE')
      : await db('sqlite_master').select('name').where('type', 'table');
  return rows
    .map((row) => row.name)
    .filter((name) => !name.startsWith('sqlite_'))
    .sort();
}

/** The number of rows of `table` (a whole count: on InnoDB it reads the table's smallest index). */
export async function rowCount(db: Knex, table: string): Promise<number> {
  const [row] = (await db(table).count({ rows: '*' })) as Array<{ rows: number | string }>;
  return Number(row?.rows ?? 0);
}
