import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '../../src/db/client'
import { MigrationError, migrate } from '../../src/db/migrate'
import { embeddedMigrations } from '../../src/db/migrations.generated'

const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'herald-mig-')), 'herald.db')
const tables = (db: Database) =>
  db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name)

describe('embedded migrations', () => {
  test('the embedded list matches migrations/meta/_journal.json (run `bun run db:generate` after schema changes)', () => {
    const journal = JSON.parse(
      readFileSync(join(import.meta.dir, '../../migrations/meta/_journal.json'), 'utf8'),
    )
    expect(embeddedMigrations.map((m) => m.tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag))
    for (const m of embeddedMigrations)
      expect(m.sql).toBe(readFileSync(join(import.meta.dir, `../../migrations/${m.tag}.sql`), 'utf8'))
  })

  test('a new file is migrated; a second run applies nothing', () => {
    const store = openStore(tmpFile())
    expect(migrate(store.sqlite)).toEqual(embeddedMigrations.map((m) => m.tag))
    expect(migrate(store.sqlite)).toEqual([])
    expect(tables(store.sqlite)).toContain('api_keys')
    store.close()
  })

  test('PRAGMAs of DESIGN.md §1 are set at open', () => {
    const store = openStore(tmpFile())
    const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0]
    expect(pragma('journal_mode')).toBe('wal')
    expect(pragma('synchronous')).toBe(1) // NORMAL
    expect(pragma('foreign_keys')).toBe(1)
    expect(pragma('busy_timeout')).toBe(5000)
    store.close()
  })

  test('an upgrade applies only the new migration', () => {
    const store = openStore(tmpFile())
    migrate(store.sqlite)
    const next = [
      ...embeddedMigrations,
      { tag: '9999_next', sql: 'CREATE TABLE next_thing (id TEXT PRIMARY KEY);' },
    ]
    expect(migrate(store.sqlite, next)).toEqual(['9999_next'])
    expect(tables(store.sqlite)).toContain('next_thing')
    store.close()
  })

  test('a failing migration leaves the file untouched and says why', () => {
    const store = openStore(tmpFile())
    migrate(store.sqlite)
    const before = tables(store.sqlite)
    const broken = [
      ...embeddedMigrations,
      { tag: '9998_ok', sql: 'CREATE TABLE half_done (id TEXT);' },
      {
        tag: '9999_broken',
        sql: 'CREATE TABLE fine (id TEXT);\n--> statement-breakpoint\nALTER TABLE nowhere ADD COLUMN x TEXT;',
      },
    ]
    expect(() => migrate(store.sqlite, broken)).toThrow(MigrationError)
    expect(() => migrate(store.sqlite, broken)).toThrow(
      /9999_broken failed, nothing was changed: no such table: nowhere/,
    )
    expect(tables(store.sqlite)).toEqual(before)
    const applied = store.sqlite
      .query<{ tag: string }, []>('SELECT tag FROM herald_migrations')
      .all()
      .map((r) => r.tag)
    expect(applied).toEqual(embeddedMigrations.map((m) => m.tag))
    store.close()
  })

  test('a file migrated by a newer binary is refused', () => {
    const store = openStore(tmpFile())
    migrate(store.sqlite, [...embeddedMigrations, { tag: '9999_future', sql: 'CREATE TABLE f (id TEXT);' }])
    expect(() => migrate(store.sqlite)).toThrow(/newer Herald/)
    store.close()
  })
})

describe('0009 events.seq', () => {
  test('existing events get seq in rowid order; the counter and the fan-out mark carry on from there', () => {
    const store = openStore(tmpFile())
    const before = embeddedMigrations.filter((m) => m.tag < '0009')
    migrate(store.sqlite, before)
    const insert = store.sqlite.query(
      "INSERT INTO events (id, client_id, type, occurred_at, data) VALUES (?, 'c', 'email.opened', 0, '{}')",
    )
    // Ids out of rowid order: seq follows the order they were written, not the id.
    for (const id of ['e3', 'e1', 'e2']) insert.run(id)
    store.sqlite.run("INSERT INTO webhook_dispatch (name, last_event_rowid) VALUES ('events', 2)")
    const through0009 = embeddedMigrations.filter((m) => m.tag < '0010')
    expect(migrate(store.sqlite, through0009)).toEqual(['0009_events_seq'])
    const rows = store.sqlite.query('SELECT id, seq FROM events ORDER BY seq').all()
    expect(rows).toEqual([
      { id: 'e3', seq: 1 },
      { id: 'e1', seq: 2 },
      { id: 'e2', seq: 3 },
    ])
    expect(store.sqlite.query('SELECT id, last_seq FROM event_sequence').all()).toEqual([
      { id: 1, last_seq: 3 },
    ])
    expect(store.sqlite.query('SELECT name, last_event_seq FROM webhook_dispatch').all()).toEqual([
      { name: 'events', last_event_seq: 2 },
    ])
    store.close()
  })

  test('a new file starts both the counter and the mark at 0', () => {
    const store = openStore(tmpFile())
    migrate(store.sqlite)
    expect(store.sqlite.query('SELECT last_seq FROM event_sequence').all()).toEqual([{ last_seq: 0 }])
    expect(store.sqlite.query('SELECT name, last_event_seq FROM webhook_dispatch').all()).toEqual([
      { name: 'events', last_event_seq: 0 },
    ])
    store.close()
  })
})
