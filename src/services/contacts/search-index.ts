import type { Database } from 'bun:sqlite'
import { perConnection } from '../../db/prepared'

// New contacts enter the FTS5 index here, in bulk, inside the transaction that inserted them
// (migration 0004 explains why this is not a per-row trigger). Every insert path calls it:
// createContact and the CSV import. Updates and deletes are kept in step by triggers.

const prepared = perConnection((sqlite) => ({
  maxSeq: sqlite.prepare<{ seq: number }, []>('SELECT coalesce(max(seq), 0) AS seq FROM contacts'),
  index: sqlite.prepare<unknown, [number]>(
    'INSERT INTO contacts_fts(rowid, email, first_name, last_name, company, phone) SELECT seq, email, first_name, last_name, company, phone FROM contacts WHERE seq > ?',
  ),
}))

/** The highest contact seq now: take it before inserting, pass it to indexContactsAfter after. */
export async function contactsHighWater(sqlite: Database): Promise<number> {
  return (await prepared(sqlite).maxSeq.get())!.seq
}

/** Indexes every contact inserted after `highWater` (same transaction, so only ours). */
export async function indexContactsAfter(sqlite: Database, highWater: number): Promise<void> {
  await prepared(sqlite).index.run(highWater)
}
