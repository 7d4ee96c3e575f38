import { type SQL, sql } from 'drizzle-orm'
import { searchTerms } from '../../lib/search-terms'
import { FTS5_DROPPED_MARKS, FTS5_SEPARATORS } from './fts5-separators'

// Contact search on PostgreSQL, returning the contacts FTS5 returns on SQLite: every query term
// must be the prefix of a word of email, names, company or phone. The words are FTS5's own:
// split at the exact separators of unicode61 (not at the parser's idea of a word, which keeps an
// address whole), folded as unicode61 remove_diacritics 2 folds (lower case; Latin letters lose
// their accents, other scripts keep theirs, so neither `unaccent` nor the 'simple' config fits),
// and stored as lexemes as they are (array_to_tsvector). Query terms go through the same fold.

/** A regex escape for one code point, as PostgreSQL's advanced regex syntax reads it. */
const regexEscape = (cp: number) =>
  cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`

/** One or more FTS5 separators, written into an E'' literal (so the backslashes are doubled). */
const SEPARATOR_RUN = `[${FTS5_SEPARATORS.map((r) =>
  typeof r === 'number' ? regexEscape(r) : `${regexEscape(r[0])}-${regexEscape(r[1])}`,
)
  .join('')
  .replaceAll('\\', '\\\\')}]+`

/** The dropped marks as an E'' literal: translate() deletes what has no counterpart. */
const DROPPED = `E'${FTS5_DROPPED_MARKS.map((cp) => `\\u${cp.toString(16).padStart(4, '0')}`).join('')}'`

/**
 * Statements that make search work on a PostgreSQL database holding `contacts`, in order; each
 * may be run again (migration 0003 ran them, with trigram indexes that 0005 dropped). The functions are IMMUTABLE so that an index may use them: they depend on
 * the ICU collation "und-x-icu" (PostgreSQL built with ICU, as Debian's, the Docker images and
 * the managed services are), whose case mapping only changes with a major ICU upgrade.
 */
export const SEARCH_DDL: readonly string[] = [
  // unicode61's fold. ICU lowers; the translate maps the few lower-case letters FTS5 folds
  // further (Greek symbol forms, final sigma, prosgegrammeni, micro, long s) and drops the marks
  // FTS5 drops (İ lowers to i and one of them); Latin letters shed combining marks
  // after canonical decomposition, except ǡ, which FTS5 keeps. The decomposition only runs when
  // such a letter is there: recomposing would change CJK compatibility ideographs and the like.
  `CREATE OR REPLACE FUNCTION herald_search_fold(t text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
    DECLARE l text := translate(lower(t COLLATE "und-x-icu"), 'µſςϐϑϕϖϰϱϵẛ' || chr(8126) || ${DROPPED}, 'μsσβθφπκρεs' || chr(953));
    BEGIN
    RETURN CASE WHEN l ~ E'[\\\\u00c0-\\\\u024f\\\\u0300-\\\\u036f\\\\u1e00-\\\\u1eff]'
      THEN normalize(regexp_replace(normalize(l, NFD), E'([b-z]|a(?!\\\\u0307\\\\u0304))[\\\\u0300-\\\\u036f]+', E'\\\\1', 'g'), NFC)
      ELSE l END;
    END
  $$`,
  // The words of a contact as FTS5 indexes them. Split before folding, as FTS5 does, at a
  // control character no fold produces, then folded in one call. ASCII text, most contacts,
  // takes a path five times cheaper: its separators are all but letters and digits, its fold
  // is lower case.
  `CREATE OR REPLACE FUNCTION herald_contact_search(email text, first_name text, last_name text, company text, phone text)
    RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE t text := concat_ws(' ', email, first_name, last_name, company, phone);
    BEGIN
    RETURN array_to_tsvector(array_remove(CASE WHEN t ~ E'^[\\\\x01-\\\\x7f]*$'
      THEN regexp_split_to_array(lower(t COLLATE "C"), '[^a-z0-9]+')
      ELSE string_to_array(herald_search_fold(regexp_replace(t, E'${SEPARATOR_RUN}', E'\\x01', 'g')), E'\\x01')
      END, ''));
    END
  $$`,
  // One query term as a prefix query. Terms hold only letters and digits (searchTerms), so the
  // quoting is a safeguard: chr(39) is the quote and chr(92) the backslash of tsquery syntax.
  `CREATE OR REPLACE FUNCTION herald_search_prefix(term text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (chr(39) || replace(replace(herald_search_fold(term), chr(92), chr(92) || chr(92)), chr(39), chr(92) || chr(39))
      || chr(39) || ':*')::tsquery
  $$`,
  'CREATE INDEX IF NOT EXISTS contacts_search ON contacts USING gin (herald_contact_search(email, first_name, last_name, company, phone))',
]

/** The indexed expression; a condition must repeat it exactly for the planner to use the index. */
const CONTACT_WORDS = sql.raw(
  'herald_contact_search(contacts.email, contacts.first_name, contacts.last_name, contacts.company, contacts.phone)',
)

/**
 * The condition over `contacts` for a search string: every term of searchTerms is the prefix of
 * a word. Null when the query holds no letter or digit (SQLite's ftsQuery is null then too).
 */
export function contactSearchCondition(query: string): SQL | null {
  const terms = searchTerms(query)
  if (terms.length === 0) return null
  const all = sql.join(
    terms.map((t) => sql`herald_search_prefix(${t}::text)`),
    sql` && `,
  )
  return sql`${CONTACT_WORDS} @@ (${all})`
}
