import { type SQL, sql } from 'drizzle-orm'
import type { Store } from './client'
import { rawRows } from './raw'

/**
 * Locks the rows `where` picks in `table` until the transaction ends, on PostgreSQL: another
 * process making the same read-then-write waits here, then reads what this one wrote. On SQLite
 * a transaction already holds the only writer, so there is nothing to do.
 */
export async function lockRows(store: Store, table: SQL, where: SQL): Promise<void> {
  if (store.dialect !== 'postgres') return
  await rawRows(store.db, sql`SELECT 1 FROM ${table} WHERE ${where} FOR UPDATE`)
}
