/**
 * Which collation's LOWER folds case on this MySQL/MariaDB server as kernel/text.ts caseFold does
 * (Unicode's lower case). LOWER follows the collation of its argument, and the columns keep the
 * database's (utf8mb4_general_ci or utf8mb4_unicode_ci, whose case tables are old: 792 letters
 * with a lower case, ẞ, Ⱥ, Georgian and Cherokee among them, stayed as they were, so a search found
 * `GROẞE TASSE` on SQLite and not on MariaDB, even by its exact text). The Unicode 14 collations
 * of MariaDB 10.10 and later, or MySQL 8's Unicode 9 ones, fold them; an older MariaDB has
 * neither, and its searches fold as its LOWER does.
 */
import type { Knex } from 'knex';

/** What a pool learned, kept on its config (database.ts textFoldOf): the collation, undefined for none. */
export interface TextFold {
  learning?: Promise<string | undefined>;
}

/** Case-sensitive and accent-sensitive, so LOWER is all they change; the first the server has is taken. */
const CANDIDATES = ['utf8mb4_uca1400_as_cs', 'utf8mb4_0900_as_cs'];

/** ER_UNKNOWN_COLLATION: the server has no such collation (any other failure says nothing about it). */
const UNKNOWN_COLLATION = 1273;

async function firstKnown(db: Knex): Promise<string | undefined> {
  for (const collation of CANDIDATES) {
    try {
      await db.raw(`SELECT LOWER(_utf8mb4'A' COLLATE ${collation}) AS folded`);
      return collation;
    } catch (error) {
      if ((error as { errno?: number }).errno !== UNKNOWN_COLLATION) throw error;
    }
  }
  return undefined;
}

/**
 * The pool's fold collation, asked of the server once (a failure other than an unknown collation,
 * say a dropped link, is asked again next time). Every server behind the pool's URL must have it:
 * a cluster node of an older version would refuse the searches that use it.
 */
export function foldCollation(db: Knex, fold: TextFold): Promise<string | undefined> {
  fold.learning ??= firstKnown(db).catch((error: unknown) => {
    fold.learning = undefined;
    throw error;
  });
  return fold.learning;
}

/** The SQL of a column (`??`) lowered as caseFold lowers: through `collation` when there is one. */
export function loweredColumnSql(collation: string | undefined): string {
  return collation ? `CONVERT(LOWER(?? COLLATE ${collation}) USING utf8mb4)` : 'LOWER(??)';
}
