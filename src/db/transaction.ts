import type { Database } from 'bun:sqlite'

/**
 * Runs fn in a write transaction on the shared connection. It begins IMMEDIATE: the write lock
 * is taken (waiting out busy_timeout) before anything is read, so a transaction that reads and
 * then writes never fails with SQLITE_BUSY_SNAPSHOT because another process (the CLI, a second
 * Herald) wrote in between. Nested calls become savepoints, so a verb's transaction composes
 * with its caller's. fn must be synchronous.
 */
export function inTransaction<T>(sqlite: Database, fn: () => T): T {
  return sqlite.transaction(fn).immediate()
}
