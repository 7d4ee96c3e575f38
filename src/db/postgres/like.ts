import { type SQL, sql } from 'drizzle-orm'

// SQLite's LIKE ignores the case of ASCII letters only, and its lower() lowers only those;
// PostgreSQL's LIKE minds case and its lower() follows the database's locale. These twins give
// PostgreSQL SQLite's answers. Patterns escape with a backslash, as escapeLike (lib/like.ts) does.

/** SQLite's lower(): ASCII letters lowered, every other character as it is (the "C" collation). */
export function lowerAscii(value: SQL | string): SQL {
  return sql`lower((${value})::text COLLATE "C")`
}

/**
 * SQLite's `value LIKE pattern ESCAPE '\'`. The ILIKE lets a trigram index narrow the rows (it
 * matches a superset: it also ignores the case of other letters); the second test is exact.
 */
export function likeIgnoringAsciiCase(value: SQL, pattern: string): SQL {
  return sql`(${value} ILIKE ${pattern} ESCAPE E'\\\\' AND ${lowerAscii(value)} LIKE ${lowerAscii(pattern)} ESCAPE E'\\\\')`
}

/** SQLite's `lower(value) = lower(other)`, the segment rules' eq on text. */
export function equalsIgnoringAsciiCase(value: SQL, other: string): SQL {
  return sql`${lowerAscii(value)} = ${lowerAscii(other)}`
}
