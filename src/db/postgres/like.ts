import { type SQL, sql } from 'drizzle-orm'

// SQLite's LIKE ignores the case of ASCII letters only, and its lower() lowers only those;
// PostgreSQL's LIKE minds case and its lower() follows the database's locale. These twins give
// PostgreSQL SQLite's answers. Patterns escape with a backslash, as escapeLike (lib/like.ts) does.

/** SQLite's lower(): ASCII letters lowered, every other character as it is (the "C" collation). */
export function lowerAscii(value: SQL | string): SQL {
  return sql`lower((${value})::text COLLATE "C")`
}

/**
 * SQLite's `value LIKE pattern ESCAPE '\'`. Under the "C" collation ILIKE folds ASCII letters
 * only, as SQLite does; under a UTF-8 locale it would fold every letter (and ICU even by
 * context: a final Σ lowers to ς, so "aΣ" would not contain "Σ"). No index serves a leading %:
 * it scans the client's contacts, as SQLite does (trigram indexes made imports three times slower).
 */
export function likeIgnoringAsciiCase(value: SQL, pattern: string): SQL {
  return sql`((${value})::text COLLATE "C" ILIKE ${pattern} ESCAPE E'\\\\')`
}

/** SQLite's `lower(value) = lower(other)`, the segment rules' eq on text. */
export function equalsIgnoringAsciiCase(value: SQL, other: string): SQL {
  return sql`${lowerAscii(value)} = ${lowerAscii(other)}`
}
