import type { Database } from 'bun:sqlite'

/**
 * Runs fn in a transaction on the shared connection. bun:sqlite turns nested calls into
 * savepoints, so a verb's transaction composes with the request-level one that stores an
 * idempotent response atomically with the change. fn must be synchronous.
 */
export function inTransaction<T>(sqlite: Database, fn: () => T): T {
  return sqlite.transaction(fn)()
}
