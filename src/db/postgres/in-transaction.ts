import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { postgresTransactionsOf } from './handle'

// Statements that take the context's `sqlite` (the handle, on PostgreSQL) and run inside the
// caller's transaction reach that transaction's drizzle db here, so their PostgreSQL forms keep
// the signature the SQLite forms have. Called outside one, they get a transaction of their own.

/**
 * Whether `sqlite` is the PostgreSQL store's handle. Asked of the connection rather than of
 * DIALECT: a process on PostgreSQL may still open a SQLite file (tests compare the two stores).
 */
export const isPgHandle = (sqlite: Database): boolean => postgresTransactionsOf(sqlite) !== undefined

/** Runs fn with the PostgreSQL transaction the caller is in (or a new one) as its db. */
export async function withPgTransaction<T>(sqlite: Database, fn: (db: Db) => Promise<T>): Promise<T> {
  const transactions = postgresTransactionsOf(sqlite)
  if (!transactions) throw new Error('withPgTransaction needs the PostgreSQL store handle')
  const current = transactions.current()
  if (current) return await fn(current as unknown as Db)
  return await transactions.run(() => fn(transactions.current() as unknown as Db))
}
