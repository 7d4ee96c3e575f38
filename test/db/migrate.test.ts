import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { openStore } from '../../src/db/client'
import { MigrationError, migrate } from '../../src/db/migrate'
import { embeddedMigrations } from '../../src/db/migrations.generated'
import { scratchDirs } from '../helpers/temp-dir'

const tempDir = scratchDirs()

const tmpFile = () => join(tempDir('herald-mig-'), 'herald.db')
const tables = async (db: Database) =>
  (
    await db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
  ).map((r) => r.name)

describe('embedded migrations', () => {
  test('the embedded list matches migrations/sqlite/meta/_journal.json (run `bun run db:generate` after schema changes)', () => {
    const journal = JSON.parse(
      readFileSync(join(import.meta.dir, '../../migrations/sqlite/meta/_journal.json'), 'utf8'),
    )
    expect(embeddedMigrations.map((m) => m.tag)).toEqual(journal.entries.map((e: { tag: string }) => e.tag))
    for (const m of embeddedMigrations)
      expect(m.sql).toBe(readFileSync(join(import.meta.dir, `../../migrations/sqlite/${m.tag}.sql`), 'utf8'))
  })

  test('a new file is migrated; a second run applies nothing', async () => {
    const store = await openStore(tmpFile())
    expect(await migrate(store.sqlite)).toEqual(embeddedMigrations.map((m) => m.tag))
    expect(await migrate(store.sqlite)).toEqual([])
    expect(await tables(store.sqlite)).toContain('api_keys')
    await store.close()
  })

  test('the writer PRAGMAs (WAL, synchronous NORMAL, foreign keys, busy timeout) are set at open', async () => {
    const store = await openStore(tmpFile())
    const pragma = async (name: string) =>
      Object.values((await store.sqlite.query(`PRAGMA ${name}`).get()) as object)[0]
    expect(await pragma('journal_mode')).toBe('wal')
    expect(await pragma('synchronous')).toBe(1) // NORMAL
    expect(await pragma('foreign_keys')).toBe(1)
    expect(await pragma('busy_timeout')).toBe(5000)
    await store.close()
  })

  test('an upgrade applies only the new migration', async () => {
    const store = await openStore(tmpFile())
    await migrate(store.sqlite)
    const next = [
      ...embeddedMigrations,
      { tag: '9999_next', sql: 'CREATE TABLE next_thing (id TEXT PRIMARY KEY);' },
    ]
    expect(await migrate(store.sqlite, next)).toEqual(['9999_next'])
    expect(await tables(store.sqlite)).toContain('next_thing')
    await store.close()
  })

  test('a failing migration leaves the file untouched and says why', async () => {
    const store = await openStore(tmpFile())
    await migrate(store.sqlite)
    const before = await tables(store.sqlite)
    const broken = [
      ...embeddedMigrations,
      { tag: '9998_ok', sql: 'CREATE TABLE half_done (id TEXT);' },
      {
        tag: '9999_broken',
        sql: 'CREATE TABLE fine (id TEXT);\n--> statement-breakpoint\nALTER TABLE nowhere ADD COLUMN x TEXT;',
      },
    ]
    expect(async () => await migrate(store.sqlite, broken)).toThrow(MigrationError)
    expect(async () => await migrate(store.sqlite, broken)).toThrow(
      /9999_broken failed, nothing was changed: no such table: nowhere/,
    )
    expect(await tables(store.sqlite)).toEqual(before)
    const applied = (
      await store.sqlite.query<{ tag: string }, []>('SELECT tag FROM herald_migrations').all()
    ).map((r) => r.tag)
    expect(applied).toEqual(embeddedMigrations.map((m) => m.tag))
    await store.close()
  })

  test('a file migrated by a newer binary is refused', async () => {
    const store = await openStore(tmpFile())
    await migrate(store.sqlite, [
      ...embeddedMigrations,
      { tag: '9999_future', sql: 'CREATE TABLE f (id TEXT);' },
    ])
    expect(async () => await migrate(store.sqlite)).toThrow(/newer Herald/)
    await store.close()
  })
})

describe('0009 events.seq', () => {
  test('existing events get seq in rowid order; the counter and the fan-out mark carry on from there', async () => {
    const store = await openStore(tmpFile())
    const before = embeddedMigrations.filter((m) => m.tag < '0009')
    await migrate(store.sqlite, before)
    const insert = store.sqlite.query(
      "INSERT INTO events (id, client_id, type, occurred_at, data) VALUES (?, 'c', 'email.opened', 0, '{}')",
    )
    // Ids out of rowid order: seq follows the order they were written, not the id.
    for (const id of ['e3', 'e1', 'e2']) await insert.run(id)
    await store.sqlite.run("INSERT INTO webhook_dispatch (name, last_event_rowid) VALUES ('events', 2)")
    const through0009 = embeddedMigrations.filter((m) => m.tag < '0010')
    expect(await migrate(store.sqlite, through0009)).toEqual(['0009_events_seq'])
    const rows = await store.sqlite.query('SELECT id, seq FROM events ORDER BY seq').all()
    expect(rows).toEqual([
      { id: 'e3', seq: 1 },
      { id: 'e1', seq: 2 },
      { id: 'e2', seq: 3 },
    ])
    expect(await store.sqlite.query('SELECT id, last_seq FROM event_sequence').all()).toEqual([
      { id: 1, last_seq: 3 },
    ])
    expect(await store.sqlite.query('SELECT name, last_event_seq FROM webhook_dispatch').all()).toEqual([
      { name: 'events', last_event_seq: 2 },
    ])
    await store.close()
  })

  test('a new file starts both the counter and the mark at 0', async () => {
    const store = await openStore(tmpFile())
    await migrate(store.sqlite)
    expect(await store.sqlite.query('SELECT last_seq FROM event_sequence').all()).toEqual([{ last_seq: 0 }])
    expect(await store.sqlite.query('SELECT name, last_event_seq FROM webhook_dispatch').all()).toEqual([
      { name: 'events', last_event_seq: 0 },
    ])
    await store.close()
  })
})

describe('0025 contacts.client_no', () => {
  const open = async () => {
    const store = await openStore(tmpFile())
    await migrate(
      store.sqlite,
      embeddedMigrations.filter((m) => m.tag < '0025'),
    )
    const client = store.sqlite.query(
      "INSERT INTO clients (id, name, status, created_at, updated_at) VALUES (?, ?, 'active', 0, 0)",
    )
    for (const id of ['client-b', 'client-a']) await client.run(id, id)
    const contact = store.sqlite.query(
      "INSERT INTO contacts (id, client_id, email, status, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'subscribed', '{}', 0, 0)",
    )
    await contact.run('ct-a1', 'client-a', 'Ann@Example.com')
    await contact.run('ct-b1', 'client-b', 'ann@example.com')
    await contact.run('ct-b2', 'client-b', 'bob@example.com')
    expect((await migrate(store.sqlite)).filter((t) => t.startsWith('0025'))).toHaveLength(1)
    return store
  }

  test("existing clients are numbered, each contact takes its client's number", async () => {
    const store = await open()
    const clients = await store.sqlite.query('SELECT id, no FROM clients ORDER BY no').all()
    expect(clients).toEqual([
      { id: 'client-b', no: 1 },
      { id: 'client-a', no: 2 },
    ])
    expect(await store.sqlite.query('SELECT id, client_no FROM contacts ORDER BY id').all()).toEqual([
      { id: 'ct-a1', client_no: 2 },
      { id: 'ct-b1', client_no: 1 },
      { id: 'ct-b2', client_no: 1 },
    ])
    await store.close()
  })

  test('the same email stays allowed in two clients; a case-different duplicate in one is refused', async () => {
    const store = await open()
    const insert = store.sqlite.query(
      "INSERT INTO contacts (id, client_id, client_no, email, status, custom_fields, created_at, updated_at) VALUES (?, ?, (SELECT no FROM clients WHERE id = ?2), ?, 'subscribed', '{}', 0, 0)",
    )
    await insert.run('ct-a2', 'client-a', 'bob@example.com')
    expect(async () => await insert.run('ct-a3', 'client-a', 'BOB@example.COM')).toThrow(
      /UNIQUE constraint failed/,
    )
    expect(async () => await insert.run('ct-b3', 'client-b', 'ANN@example.com')).toThrow(
      /UNIQUE constraint failed/,
    )
    // A new client takes the next number; the email lookup is answered by the unique key.
    await store.sqlite.run(
      "INSERT INTO clients (id, no, name, status, created_at, updated_at) VALUES ('client-c', (SELECT max(no) + 1 FROM clients), 'c', 'active', 0, 0)",
    )
    expect(await store.sqlite.query("SELECT no FROM clients WHERE id = 'client-c'").get()).toEqual({ no: 3 })
    const plan = (
      await store.sqlite
        .query('EXPLAIN QUERY PLAN SELECT id FROM contacts WHERE client_no = ?1 AND lower(email) = lower(?2)')
        .all(1, 'x')
    ).map((r) => (r as { detail: string }).detail)
    expect(plan.join('\n')).toContain('USING INDEX contacts_client_no_email_idx (client_no=? AND <expr>=?)')
    await store.close()
  })
})

describe('0027 contacts_fts without positions', () => {
  test('existing contacts stay searchable by prefix; updates and deletes still reach the index', async () => {
    const store = await openStore(tmpFile())
    const db = store.sqlite
    await migrate(
      db,
      embeddedMigrations.filter((m) => m.tag < '0027'),
    )
    await db.run(
      "INSERT INTO clients (id, no, name, status, created_at, updated_at) VALUES ('c', 1, 'c', 'active', 0, 0)",
    )
    const contact = db.query(
      "INSERT INTO contacts (id, client_id, client_no, email, first_name, company, status, custom_fields, created_at, updated_at) VALUES (?, 'c', 1, ?, ?, ?, 'subscribed', '{}', 0, 0)",
    )
    await contact.run('ct-1', 'ann.lee@acme.io', 'Ann', 'Acme, Inc.')
    await contact.run('ct-2', 'bob@bluepeak.com', 'Zoë', 'Blue Peak Labs')
    await contact.run('ct-3', 'annette@example.com', null, null)
    // Before 0027 the rows enter the index as the app adds them (search-index.ts).
    await db.run(
      'INSERT INTO contacts_fts(rowid, email, first_name, last_name, company, phone) SELECT seq, email, first_name, last_name, company, phone FROM contacts',
    )
    expect((await migrate(db)).filter((t) => t.startsWith('0027'))).toHaveLength(1)

    const sql = (await db
      .query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE name = 'contacts_fts'")
      .get())!.sql
    expect(sql).toContain("detail='none'")
    expect(sql).toContain("prefix='2 3'")
    // The rebuild indexed every existing contact, and prefix terms joined with AND (ftsQuery) match.
    const search = async (match: string) =>
      (
        await db
          .query<{ id: string }, [string]>(
            'SELECT contacts.id FROM contacts_fts JOIN contacts ON contacts.seq = contacts_fts.rowid WHERE contacts_fts MATCH ? ORDER BY contacts_fts.rowid',
          )
          .all(match)
      ).map((r) => r.id)
    expect(await search('"ann"*')).toEqual(['ct-1', 'ct-3'])
    expect(await search('"an"* AND "acme"*')).toEqual(['ct-1'])
    expect(await search('"zoe"*')).toEqual(['ct-2'])
    expect(await search('"inc"*')).toEqual(['ct-1'])
    // The update and delete triggers keep working against the new table.
    await db.run("UPDATE contacts SET first_name = 'Hannah' WHERE id = 'ct-3'")
    expect(await search('"hann"*')).toEqual(['ct-3'])
    await db.run("DELETE FROM contacts WHERE id = 'ct-1'")
    expect(await search('"ann"*')).toEqual(['ct-3'])
    expect(await search('"acme"*')).toEqual([])
    await db.run("INSERT INTO contacts_fts(contacts_fts, rank) VALUES ('integrity-check', 1)")
    await store.close()
  })
})
