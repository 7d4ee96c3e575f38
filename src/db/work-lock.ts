import { sql } from 'drizzle-orm'
import type { Db } from './client'
import { DIALECT } from './dialect'
import { rawRows } from './raw'

/**
 * Takes the lock on one piece of work (`space`: what kind, `name`: which) until the transaction
 * ends, if no other process holds it, and says whether it did. On PostgreSQL an advisory lock,
 * so that one process at a time does the work without holding the rows it reads: another
 * process's writes to them do not wait for it. On SQLite a transaction already holds the only
 * writer.
 */
export async function tryWorkLock(db: Db, space: number, name: string): Promise<boolean> {
  if (DIALECT !== 'postgres') return true
  const [row] = await rawRows<{ held: boolean }>(
    db,
    sql`SELECT pg_try_advisory_xact_lock(${space}::int, hashtext(${name})) AS held`,
  )
  return row!.held
}

/**
 * Takes the same kind of lock as tryWorkLock, waiting while another process holds it: for a
 * short read-then-write that must not interleave with another's (a count read, then added to).
 */
export async function holdWorkLock(db: Db, space: number, name: string): Promise<void> {
  if (DIALECT !== 'postgres') return
  await rawRows(db, sql`SELECT pg_advisory_xact_lock(${space}::int, hashtext(${name})) AS held`)
}
