import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { FTS5_DROPPED_MARKS, FTS5_SEPARATORS } from '../../../src/db/postgres/fts5-separators'
import { searchTerms } from '../../../src/lib/search-terms'
import { ftsQuery } from '../../../src/services/contacts/read'

// PostgreSQL search copies two facts about FTS5's tokenizer as tables; they are read back here
// from the SQLite bundled with Bun, for every code point: "a<c>b" is one word "a<c>b", two
// words (c splits) or "ab" (c is a mark FTS5 drops).
describe('FTS5 tokenizer tables for PostgreSQL', () => {
  test('FTS5_SEPARATORS and FTS5_DROPPED_MARKS are exactly what unicode61 does', () => {
    const db = new Database(':memory:')
    db.run("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 2')")
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')")
    const insert = db.prepare('INSERT INTO f(rowid, t) VALUES (?, ?)')
    db.transaction(() => {
      for (let cp = 1; cp <= 0x10ffff; cp++) {
        if (cp < 0xd800 || cp > 0xdfff) insert.run(cp, `a${String.fromCodePoint(cp)}b`)
      }
    })()
    const words = new Map<number, string[]>()
    for (const r of db.query<{ term: string; doc: number }, []>('SELECT term, doc FROM v').all())
      words.set(r.doc, [...(words.get(r.doc) ?? []), r.term])
    const splits = new Set<number>()
    for (const r of FTS5_SEPARATORS)
      for (let cp = typeof r === 'number' ? r : r[0]; cp <= (typeof r === 'number' ? r : r[1]); cp++)
        splits.add(cp)
    const wrong: string[] = []
    for (const [cp, terms] of words) {
      const split = terms.length === 2
      const dropped = terms.length === 1 && terms[0] === 'ab'
      if (split !== splits.has(cp) || dropped !== FTS5_DROPPED_MARKS.includes(cp)) wrong.push(cp.toString(16))
    }
    expect(wrong).toEqual([])
    expect(words.size).toBe(0x10ffff - 0x800)
  }, 60_000)

  test('searchTerms are the terms of the service ftsQuery', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (q) => {
        const terms = searchTerms(q)
        expect(ftsQuery(q)).toBe(terms.length ? terms.map((t) => `"${t}"*`).join(' AND ') : null)
      }),
      { numRuns: 2000 },
    )
  })
})
