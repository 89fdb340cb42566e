/**
 * Which collation's LOWER folds case on this MySQL/MariaDB server as kernel/text.ts caseFold does
 * (Unicode's lower case). LOWER follows the collation of its argument, and the columns keep the
 * database's (utf8mb4_general_ci, whose case table is Unicode's of the 1990s: 792 letters with a
 * lower case, ẞ, Ⱥ, Georgian and Cherokee among them, stayed as they were, so a search found
 * `GROẞE TASSE` on SQLite and not on MariaDB, even by its exact text). The Unicode 14 collations
 * of MariaDB 10.10 and later, or MySQL 8's Unicode 9 ones, fold them; an older MariaDB has
 * neither, and its searches fold as its LOWER does.
 */
export interface TextFold {
  /** The collation, once a connection has found it; undefined before, and on a server with neither. */
  collation?: string;
  learned: boolean;
}

/** Case-sensitive and accent-sensitive, so LOWER is all they change; the first the server has is taken. */
const CANDIDATES = ['utf8mb4_uca1400_as_cs', 'utf8mb4_0900_as_cs'];

interface CallbackConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

/**
 * A new connection's step (knex's afterCreate) that learns `fold` once per pool, on its first
 * connection: a search's SQL is written before its connection is taken, so only a search that is
 * the process's very first statement would fold as the column's collation does.
 */
export function learnTextFold(fold: TextFold, conn: CallbackConnection, done: () => void): void {
  if (fold.learned) return done();
  const attempt = (index: number): void => {
    const collation = CANDIDATES[index];
    if (collation === undefined) {
      fold.learned = true;
      return done();
    }
    conn.query(`SELECT LOWER(_utf8mb4'A' COLLATE ${collation})`, (error) => {
      if (error) return attempt(index + 1);
      fold.collation = collation;
      fold.learned = true;
      done();
    });
  };
  attempt(0);
}

/** The SQL of a column (`??`) lowered as caseFold lowers: through the fold's collation when there is one. */
export function loweredColumnSql(fold: TextFold | undefined): string {
  return fold?.collation ? `CONVERT(LOWER(?? COLLATE ${fold.collation}) USING utf8mb4)` : 'LOWER(??)';
}
