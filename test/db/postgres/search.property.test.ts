import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL as Client } from 'bun'
import { sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import fc from 'fast-check'
import { migrate } from '../../../src/db/migrate'
import { contactSearchCondition, SEARCH_DDL } from '../../../src/db/postgres/search'
import { inTransaction } from '../../../src/db/transaction'
import { ftsQuery } from '../../../src/services/contacts/read'
import { contactsHighWater, indexContactsAfter } from '../../../src/services/contacts/search-index'
import { blankClient as testDatabase } from '../../helpers/pg-database'

// Search on PostgreSQL finds exactly the contacts FTS5 finds on SQLite: the same generated
// contacts go into a SQLite file migrated as Herald migrates it (indexed by the service's own
// indexer, queried with the service's ftsQuery) and into PostgreSQL with SEARCH_DDL.

const pick = (chars: string) => fc.constantFrom(...Array.from(chars))
// Letters people write names in, with the folds that differ between stores' usual tools:
// Latin with and without decomposition, ß/æ/ø/ł that FTS5 keeps, ǡ (kept) and ȱ (stripped),
// Greek with tonos and sigma forms, Cyrillic ё, dotted/dotless i, micro sign, CJK, Arabic.
const letter = fc.oneof(
  { weight: 6, arbitrary: pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') },
  { weight: 3, arbitrary: pick('éÉèüÜöñÑçÇåÅøØßæÆœŒłŁőŐțşĞğİıǡǠȱȰẞµſ') },
  { weight: 2, arbitrary: pick('ΣσςάΆέΈΐϐϑΩωΟοφϕЁёЙйЖжШщ') },
  { weight: 1, arbitrary: pick('漢字中文日本語한국어العربيةעברית') },
  { weight: 1, arbitrary: fc.constantFrom('e\u0301', 'a\u0308', 'n\u0303', 'ι', 'Ａｂｃ') },
)
const digit = pick('0123456789')
const word = fc
  .array(fc.oneof({ weight: 5, arbitrary: letter }, { weight: 1, arbitrary: digit }), {
    minLength: 1,
    maxLength: 8,
  })
  .map((cs) => cs.join(''))
// Characters between words: FTS5 separators, and characters that are word characters to FTS5
// but not letters today (an emoji newer than Unicode 6.1, private use, a newer mark).
const joint = fc.constantFrom(..." |-|'|.|_|+| & |, |/|🌸|🤗|\ue000|\u0897|·|—".split('|'))
const phrase = fc
  .tuple(word, fc.array(fc.tuple(joint, word), { maxLength: 3 }))
  .map(([w, rest]) => w + rest.map(([j, x]) => j + x).join(''))
const email = fc
  .tuple(phrase, fc.array(word, { minLength: 1, maxLength: 2 }), pick('.-'))
  .map(([local, domain, sep]) => `${local.replace(/ /g, '.')}@${domain.join(sep)}.io`)
const phone = fc
  .array(fc.stringMatching(/^[0-9]{2,4}$/), { minLength: 2, maxLength: 4 })
  .chain((parts) =>
    fc.constantFrom(`+1 (${parts.join(') ')}`, parts.join(' '), `+44.${parts.join('.')}`, parts.join('-')),
  )
const contact = fc.record({
  email,
  first_name: fc.option(phrase, { nil: null }),
  last_name: fc.option(phrase, { nil: null }),
  company: fc.option(phrase, { nil: null }),
  phone: fc.option(phone, { nil: null }),
})
type Contact = typeof contact extends fc.Arbitrary<infer T> ? T : never

/** A piece of one of a contact's fields: mostly the start of a word, sometimes any slice. */
function pieceOf(c: Contact): fc.Arbitrary<string> {
  const texts = [c.email, c.first_name, c.last_name, c.company, c.phone].filter((t): t is string => !!t)
  return fc
    .tuple(fc.constantFrom(...texts), fc.nat(), fc.nat(), fc.boolean(), fc.nat(4))
    .map(([t, a, b, upper, anywhere]) => {
      const pieces = anywhere ? [t] : t.split(/[^\p{L}\p{N}]+/u).filter(Boolean)
      const piece = pieces[a % pieces.length] ?? t
      const start = anywhere ? a % piece.length : 0
      const part = piece.slice(start, start + 1 + (b % 6))
      return upper ? part.toUpperCase() : part
    })
}

/** Queries: pieces of one contact (several terms), odd input, words from nowhere. */
function queries(corpus: Contact[]): fc.Arbitrary<string[]> {
  const fromContact = fc
    .constantFrom(...corpus)
    .chain((c) => fc.array(pieceOf(c), { minLength: 1, maxLength: 3 }))
    .map((parts) => parts.join(' '))
  const odd = fc.constantFrom(...'|   |--|"|*|^|NEAR|AND|OR ann|(x|o\'b|🌸|a:b|\\'.split('|'))
  const query = fc
    .array(
      fc.oneof(
        { weight: 8, arbitrary: fromContact },
        { weight: 1, arbitrary: odd },
        { weight: 1, arbitrary: phrase },
      ),
      {
        minLength: 1,
        maxLength: 2,
      },
    )
    .map((parts) => parts.join(' '))
  return fc.array(query, { minLength: 10, maxLength: 20 })
}

let pg: Client
const dialect = new PgDialect()

beforeAll(async () => {
  pg = await testDatabase()
  await pg.unsafe(
    'CREATE TABLE contacts (seq bigint PRIMARY KEY, email text NOT NULL, first_name text, last_name text, company text, phone text)',
  )
  for (const statement of SEARCH_DDL) await pg.unsafe(statement)
})
afterAll(() => pg?.close())

async function sqliteWith(corpus: Contact[]): Promise<Database> {
  const db = new Database(':memory:')
  await migrate(db)
  db.run(
    "INSERT INTO clients (id, no, name, status, created_at, updated_at) VALUES ('c', 1, 'c', 'active', 0, 0)",
  )
  const insert = db.prepare(
    "INSERT INTO contacts (seq, id, client_id, email, first_name, last_name, company, phone, created_at, updated_at) VALUES (?, ?, 'c', ?, ?, ?, ?, ?, 0, 0)",
  )
  await inTransaction(db, async () => {
    const high = await contactsHighWater(db)
    corpus.forEach((c, i) => {
      insert.run(i + 1, `contact-${i + 1}`, c.email, c.first_name, c.last_name, c.company, c.phone)
    })
    await indexContactsAfter(db, high)
  })
  return db
}

async function postgresWith(corpus: Contact[]) {
  await pg.unsafe('TRUNCATE contacts')
  const rows = corpus.map((c, i) => ({ seq: i + 1, ...c }))
  await pg`INSERT INTO contacts ${pg(rows)}`
}

function foundBySqlite(db: Database, query: string): number[] | null {
  const match = ftsQuery(query)
  if (!match) return null
  return db
    .query<{ seq: number }, [string]>(
      'SELECT contacts.seq AS seq FROM contacts_fts JOIN contacts ON contacts.seq = contacts_fts.rowid WHERE contacts_fts MATCH ? ORDER BY seq',
    )
    .all(match)
    .map((r) => r.seq)
}

async function foundByPostgres(query: string): Promise<number[] | null> {
  const condition = contactSearchCondition(query)
  if (!condition) return null
  const q = dialect.sqlToQuery(sql`SELECT seq FROM contacts WHERE ${condition} ORDER BY seq`)
  const rows: { seq: string | number }[] = await pg.unsafe(q.sql, q.params as never[])
  return rows.map((r) => Number(r.seq))
}

describe('contact search on PostgreSQL', () => {
  test('finds the same contacts as FTS5 on SQLite', async () => {
    const world = fc
      .uniqueArray(contact, { minLength: 1, maxLength: 60, selector: (c) => c.email.toLowerCase() })
      .chain((corpus) => fc.tuple(fc.constant(corpus), queries(corpus)))
    let compared = 0
    let nonEmpty = 0
    await fc.assert(
      fc.asyncProperty(world, async ([corpus, qs]) => {
        const db = await sqliteWith(corpus)
        await postgresWith(corpus)
        for (const q of qs) {
          const want = foundBySqlite(db, q)
          expect({ q, found: await foundByPostgres(q) }).toEqual({ q, found: want })
          compared++
          if (want?.length) nonEmpty++
        }
        db.close()
      }),
      { numRuns: 60 },
    )
    // Equality of empty answers says little: enough queries must find someone (about a fifth
    // do; the rest cut words in the middle or cross words, which neither store matches).
    expect(nonEmpty).toBeGreaterThan(compared / 8)
  }, 120_000)
})
