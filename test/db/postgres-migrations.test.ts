// The PostgreSQL migrations, applied to a real PostgreSQL, give every table of the SQLite schema
// with the same columns (nullability included) and the same indexes, on a blank database of the
// test server (test/helpers/postgres.ts starts one when HERALD_TEST_POSTGRES_URL names none).
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { MigrationError, migrate } from '../../src/db/migrate'
import { embeddedPgMigrations } from '../../src/db/migrations.generated'
import { applyPgMigrations } from '../../src/db/postgres/migrate'
import { freePort } from '../helpers/ports'
import { blankDatabase } from '../helpers/postgres'

/** SQLite's own objects and the FTS5 search index (PostgreSQL searches through tsvector). */
const sqliteOnly = (name: string) => name.startsWith('sqlite_') || name.startsWith('contacts_fts')

type Shape = Record<string, { columns: string[]; indexes: string[] }>

async function sqliteShape(): Promise<Shape> {
  const db = new Database(':memory:')
  await migrate(db)
  const shape: Shape = {}
  const tables = db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
  for (const { name } of tables.filter((t) => !sqliteOnly(t.name))) {
    const cols = db
      .query<{ name: string; notnull: number; pk: number }, []>(`PRAGMA table_info("${name}")`)
      .all()
    const indexes = db
      .query<{ name: string }, []>(`PRAGMA index_list("${name}")`)
      .all()
      .map((i) => i.name)
      .filter((i) => !i.startsWith('sqlite_autoindex_'))
    shape[name] = {
      // A primary key column is NOT NULL in PostgreSQL whatever SQLite's table_info says.
      columns: cols.map((c) => `${c.name} ${c.notnull || c.pk ? 'not null' : 'null'}`).sort(),
      indexes: indexes.sort(),
    }
  }
  db.close()
  return shape
}

async function postgresShape(sql: SQL): Promise<Shape> {
  const cols = (await sql`
    SELECT table_name, column_name, is_nullable FROM information_schema.columns
    WHERE table_schema = 'public'`) as { table_name: string; column_name: string; is_nullable: string }[]
  const indexes = (await sql`
    SELECT i.tablename, i.indexname FROM pg_indexes i
    WHERE i.schemaname = 'public' AND NOT EXISTS (
      SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype = 'p')`) as {
    tablename: string
    indexname: string
  }[]
  const shape: Shape = {}
  for (const c of cols) {
    shape[c.table_name] ??= { columns: [], indexes: [] }
    shape[c.table_name]!.columns.push(`${c.column_name} ${c.is_nullable === 'NO' ? 'not null' : 'null'}`)
  }
  // Contact search is PostgreSQL's own (a GIN index, for SQLite's FTS5 table).
  const searchOnly = (name: string) => name === 'contacts_search'
  for (const i of indexes) if (!searchOnly(i.indexname)) shape[i.tablename]?.indexes.push(i.indexname)
  for (const t of Object.values(shape)) {
    t.columns.sort()
    t.indexes.sort()
  }
  return shape
}

describe('PostgreSQL migrations', () => {
  let sql: SQL

  beforeAll(async () => {
    sql = new SQL({ url: await blankDatabase(), max: 2 })
  })

  afterAll(async () => {
    await sql?.close()
  })

  test('apply once, in order; a second run applies nothing', async () => {
    expect(await applyPgMigrations(sql)).toEqual(embeddedPgMigrations.map((m) => m.tag))
    expect(await applyPgMigrations(sql)).toEqual([])
  })

  test('every SQLite table exists with the same columns and indexes', async () => {
    const pg = await postgresShape(sql)
    const lite = await sqliteShape()
    expect(Object.keys(pg).sort()).toEqual(Object.keys(lite).sort())
    for (const [table, shape] of Object.entries(lite))
      expect({ table, ...pg[table] }).toEqual({ table, ...shape })
  })

  // Bun's SQL (like postgres.js) returns bigint as text unless told otherwise; drizzle's
  // bigint({ mode: 'number' }) converts, raw statements do not.
  test('the seed rows the code expects are there', async () => {
    expect(await sql`SELECT id, last_seq FROM event_sequence`).toEqual([{ id: '1', last_seq: '0' }])
    expect(await sql`SELECT name FROM webhook_dispatch`).toEqual([{ name: 'events' }])
  })

  test('contact search keeps no trigram index and a 64 MB pending list; stored bodies use lz4 where the server has it', async () => {
    const indexes = (await sql`SELECT indexname FROM pg_indexes WHERE tablename = 'contacts'`) as {
      indexname: string
    }[]
    expect(indexes.map((i) => i.indexname).filter((n) => n.endsWith('_trgm'))).toEqual([])
    expect(
      await sql`SELECT reloptions FROM pg_class WHERE relname = 'contacts_search'`.then(
        (r) => r[0].reloptions,
      ),
    ).toEqual(['gin_pending_list_limit=65536'])
    const lz4 = (
      await sql`SELECT 'lz4' = ANY(enumvals) AS has FROM pg_settings WHERE name = 'default_toast_compression'`
    )[0].has
    const compression = await sql`SELECT attname, attcompression FROM pg_attribute
      WHERE attrelid = 'message_contents'::regclass AND attname IN ('body_html', 'body_text') ORDER BY attname`
    expect(compression).toEqual([
      { attname: 'body_html', attcompression: lz4 ? 'l' : '' },
      { attname: 'body_text', attcompression: lz4 ? 'l' : '' },
    ])
  })

  test('a migration that fails changes nothing', async () => {
    const bad = [{ tag: '9999_bad', sql: 'CREATE TABLE t_ok (a int);--> statement-breakpoint\nSELECT nope' }]
    await expect(applyPgMigrations(sql, [...embeddedPgMigrations, ...bad])).rejects.toThrow(
      /migration 9999_bad failed, nothing was changed/,
    )
    expect(await sql`SELECT to_regclass('t_ok') AS t`).toEqual([{ t: null }])
  })

  test('a database that cannot be reached is said so, not named as a failed migration', async () => {
    const nowhere = new SQL({ url: `postgres://postgres@127.0.0.1:${freePort()}/herald`, max: 1 })
    try {
      const err = await applyPgMigrations(nowhere).catch((e: Error) => e)
      expect(err).toBeInstanceOf(MigrationError)
      expect((err as Error).message).toStartWith(
        'the PostgreSQL database could not be migrated (no migration had started, nothing was changed): ',
      )
    } finally {
      await nowhere.close()
    }
  })

  test('a database migrated by a newer Herald is refused', async () => {
    await expect(applyPgMigrations(sql, embeddedPgMigrations.slice(0, 1))).rejects.toThrow(/newer Herald/)
  })
})
