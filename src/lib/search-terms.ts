/**
 * Separators of the search index's tokenizer (SQLite FTS5 unicode61, Unicode 6.1 tables) as a
 * query sees them: anything but letters and digits, and the few characters that were spacing
 * marks in Unicode 6.1 but are letters now (New Tai Lue vowel and tone signs, two Vedic signs).
 * The same as ftsQuery's in services/contacts/read.ts, which the tests hold it to.
 */
const SEPARATORS = /(?:[^\p{L}\p{N}]|[\u19b0-\u19c0\u19c8\u19c9\u1cf2\u1cf3])+/u

/** At most this many terms are searched; the rest of a long query is ignored. */
export const MAX_SEARCH_TERMS = 16

/**
 * The terms of a contact search: lower-cased words of the query, each to match the prefix of a
 * word of the contact. Empty when the query holds no letter or digit.
 */
export function searchTerms(query: string): string[] {
  return query.toLowerCase().split(SEPARATORS).filter(Boolean).slice(0, MAX_SEARCH_TERMS)
}
