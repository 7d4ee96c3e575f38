import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL as Client } from 'bun'
import { type SQL, sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import fc from 'fast-check'
import { equalsIgnoringAsciiCase, likeIgnoringAsciiCase } from '../../../src/db/postgres/like'
import { escapeLike } from '../../../src/lib/like'
import { blankClient as testDatabase } from '../../helpers/pg-database'

// The LIKE twins answer on PostgreSQL what SQLite's LIKE and lower() answer, for text mixing
// ASCII and other letters in both cases and the characters LIKE treats specially. The values
// carry an ICU collation, as a column of a database made with a UTF-8 locale does (in a "C"
// database, plain ILIKE would already be right and the test would prove nothing).
const text = fc
  .array(fc.constantFrom(...Array.from('aAbBzZéÉßẞıIİiσΣς%_\\ .@-')), { maxLength: 8 })
  .map((cs) => cs.join(''))

const swapCase = (s: string) =>
  Array.from(s, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')

let pg: Client
const dialect = new PgDialect()
const sqlite = new Database(':memory:')
beforeAll(async () => {
  pg = await testDatabase()
})
afterAll(() => pg?.close())

async function onPostgres(condition: SQL): Promise<boolean> {
  const q = dialect.sqlToQuery(sql`SELECT (${condition}) AS ok`)
  const [row] = await pg.unsafe(q.sql, q.params as never[])
  return row.ok
}

describe('LIKE twins on PostgreSQL', () => {
  test('contains, starts_with and ends_with match as SQLite LIKE does', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        fc.constantFrom('%v%', 'v%', '%v'),
        async (value, a, b, flip, shape) => {
          // Mostly a slice of the value in the other case, so that case decides the answer.
          const slice = value.slice(a % (value.length + 1), (a % (value.length + 1)) + (b % 4))
          const part = flip ? swapCase(slice) : slice
          const pattern = shape.replace('v', escapeLike(part))
          const want = !!sqlite
            .query<{ ok: number }, [string, string]>("SELECT ? LIKE ? ESCAPE '\\' AS ok")
            .get(value, pattern)!.ok
          const got = await onPostgres(
            likeIgnoringAsciiCase(sql`${value}::text COLLATE "und-x-icu"`, pattern),
          )
          expect({ value, pattern, got }).toEqual({ value, pattern, got: want })
        },
      ),
      { numRuns: 400 },
    )
  })

  test('eq compares as SQLite lower() = lower() does', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, fc.boolean(), async (a, other, swapped) => {
        const b = swapped ? swapCase(a) : other
        const want = !!sqlite
          .query<{ ok: number }, [string, string]>('SELECT lower(?) = lower(?) AS ok')
          .get(a, b)!.ok
        expect(await onPostgres(equalsIgnoringAsciiCase(sql`${a}::text COLLATE "und-x-icu"`, b))).toBe(want)
      }),
      { numRuns: 400 },
    )
  })
})
