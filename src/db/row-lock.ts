import { eq, sql, type Table } from 'drizzle-orm'
import type { PgDatabase } from 'drizzle-orm/pg-core'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { Store } from './client'
import { DIALECT } from './dialect'

/**
 * ` FOR UPDATE` on PostgreSQL, nothing on SQLite: appended to a read of a row the transaction
 * goes on to change, it holds the row, so a process doing the same at the same moment waits and
 * then reads what this one wrote.
 */
export const forUpdate = () => sql.raw(DIALECT === 'postgres' ? ' FOR UPDATE' : '')

/**
 * The row of `table` whose `key` is `value`, as drizzle's select answers it, held `FOR UPDATE`
 * until the transaction ends on PostgreSQL (one statement: the lock and the read); on SQLite the
 * transaction already holds the only writer. For a read-then-write that another process may make
 * at the same moment: it waits here, then reads what the first one wrote.
 */
export async function heldRow<T extends Table>(
  store: Store,
  table: T,
  key: SQLiteColumn,
  value: string,
): Promise<T['$inferSelect'] | undefined> {
  // On PostgreSQL the tables are the pg-core twins; drizzle's types name the SQLite ones.
  const rows =
    store.dialect === 'postgres'
      ? await (store.db as unknown as PgDatabase<never, never>)
          .select()
          .from(table as never)
          .where(eq(key as never, value))
          .limit(1)
          .for('update')
      : await store.db
          .select()
          .from(table as never)
          .where(eq(key, value))
          .limit(1)
  return (rows as T['$inferSelect'][])[0]
}
