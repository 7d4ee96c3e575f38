import { type SQL, sql } from 'drizzle-orm'
import type { Store } from './client'
import { DIALECT } from './dialect'
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

/**
 * ` FOR UPDATE` on PostgreSQL, nothing on SQLite: appended to a read of a row the transaction
 * goes on to change, it holds the row, so a process doing the same at the same moment waits and
 * then reads what this one wrote.
 */
export const forUpdate = () => sql.raw(DIALECT === 'postgres' ? ' FOR UPDATE' : '')
