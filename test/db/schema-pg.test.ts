// The generated PostgreSQL schema can stand in for the SQLite one: same exports, same tables,
// same column keys, so code imports either set.
import { expect, test } from 'bun:test'
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm'
import * as sqlite from '../../src/db/schema'
import * as pg from '../../src/db/schema-pg'

test('the PostgreSQL schema exports exactly the names the SQLite schema does', () => {
  expect(Object.keys(pg).sort()).toEqual(Object.keys(sqlite).sort())
})

test('each table has the same name and column keys on both stores', () => {
  for (const [name, lite] of Object.entries(sqlite)) {
    if (!is(lite, Table)) continue
    const other = (pg as Record<string, unknown>)[name]
    expect(is(other, Table)).toBe(true)
    expect(getTableName(other as Table)).toBe(getTableName(lite))
    const columns = (t: Table) =>
      Object.entries(getTableColumns(t)).map(
        ([key, c]) => `${key}:${c.name}:${c.notNull}:${JSON.stringify(c.default)}`,
      )
    expect(columns(other as Table)).toEqual(columns(lite))
  }
})

test('the PostgreSQL search migrations leave SEARCH_DDL, statement for statement', async () => {
  const { SEARCH_DDL } = await import('../../src/db/postgres/search')
  const { embeddedPgMigrations } = await import('../../src/db/migrations.generated')
  const statementsOf = (tag: string) =>
    embeddedPgMigrations
      .find((x) => x.tag === tag)!
      .sql.split('--> statement-breakpoint')
      .map((s) => s.replace(/^(\s*--[^\n]*\n)+/, '').trim())
  // 0003 also made pg_trgm and five trigram indexes, which 0005 dropped.
  const trigram = ['email', 'first_name', 'last_name', 'company', 'phone']
  const made = statementsOf('0003_contacts_search')
  expect(made.filter((s) => !s.includes('trgm'))).toEqual(SEARCH_DDL.map((s) => s.trim()))
  expect(made.filter((s) => s.includes('_trgm ON contacts'))).toHaveLength(trigram.length)
  expect(statementsOf('0005_contacts_search_for_imports')).toEqual([
    ...trigram.map((c) => `DROP INDEX IF EXISTS contacts_${c}_trgm`),
    'ALTER INDEX contacts_search SET (gin_pending_list_limit = 65536)',
  ])
})
