import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { ftsQuery } from '../../../src/services/contacts/read'

// The index keeps no positions (migration 0027, detail='none'), so FTS5 refuses a phrase: every
// term ftsQuery quotes must be one token of the index's tokenizer, or the search fails (a 500).
// Checked for every letter and digit of Unicode against the SQLite bundled with Bun, on the
// index exactly as the latest migration that makes it declares it.
const migration = await Bun.file(
  new URL('../../../migrations/sqlite/0027_contacts_fts_detail_none.sql', import.meta.url),
).text()
const create = migration.split('--> statement-breakpoint').find((s) => s.includes('CREATE VIRTUAL TABLE'))!

describe('ftsQuery and the index tokenizer', () => {
  test('no letter or digit inside a word makes a term the index would read as a phrase', async () => {
    const db = new Database(':memory:')
    await db.run(
      'CREATE TABLE contacts (seq INTEGER PRIMARY KEY, email TEXT, first_name TEXT, last_name TEXT, company TEXT, phone TEXT)',
    )
    await db.run(create)
    const match = db.query('SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ?')
    const refused: string[] = []
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const ch = String.fromCodePoint(cp)
      if (!/[\p{L}\p{N}]/u.test(ch)) continue
      const q = ftsQuery(`a${ch}b`)!
      try {
        await match.all(q)
      } catch {
        refused.push(`U+${cp.toString(16).toUpperCase()}`)
      }
    }
    expect(refused).toEqual([])
  })

  test('the characters the tokenizer splits at split the term', () => {
    expect(ftsQuery('ab\u19b0cd x\u1cf3y')).toBe('"ab"* AND "cd"* AND "x"* AND "y"*')
    expect(ftsQuery('Ann.Lee@acme.io')).toBe('"ann"* AND "lee"* AND "acme"* AND "io"*')
  })
})
