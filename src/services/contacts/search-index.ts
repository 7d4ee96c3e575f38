import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import { isPgHandle, withPgTransaction } from '../../db/postgres/in-transaction'
import { perConnection } from '../../db/prepared'
import { rawRows } from '../../db/raw'

// New contacts enter the FTS5 index here, in bulk, inside the transaction that inserted them
// (migration 0004 explains why this is not a per-row trigger). Every insert path calls it:
// createContact and the CSV import. Updates and deletes are kept in step by triggers.
// On PostgreSQL the search index is an expression index (postgres/search.ts), kept by the
// database itself: there is nothing to index, and the high-water mark only serves
// countUnreachableAfter.

const prepared = perConnection((sqlite) => ({
  maxSeq: sqlite.prepare<{ seq: number }, []>('SELECT coalesce(max(seq), 0) AS seq FROM contacts'),
  index: sqlite.prepare<unknown, [number]>(
    'INSERT INTO contacts_fts(rowid, email, first_name, last_name, company, phone) SELECT seq, email, first_name, last_name, company, phone FROM contacts WHERE seq > ?',
  ),
}))

/** The highest contact seq now: take it before inserting, pass it to indexContactsAfter after. */
export async function contactsHighWater(sqlite: Database): Promise<number> {
  if (isPgHandle(sqlite))
    return await withPgTransaction(sqlite, async (db) =>
      Number(
        (await rawRows<{ seq: string }>(db, sql`SELECT coalesce(max(seq), 0) AS seq FROM contacts`))[0]!.seq,
      ),
    )
  return (await prepared(sqlite).maxSeq.get())!.seq
}

/** Indexes every contact inserted after `highWater` (same transaction, so only ours). */
export async function indexContactsAfter(sqlite: Database, highWater: number): Promise<void> {
  if (isPgHandle(sqlite)) return
  await prepared(sqlite).index.run(highWater)
}
