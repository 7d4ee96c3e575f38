import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import { DIALECT } from './dialect'

// A time budget for one statement. bun:sqlite exposes neither a statement timeout nor
// sqlite3_interrupt, but it does run JavaScript functions inside a statement: a query puts
// WITHIN_DEADLINE first in its WHERE clause, SQLite calls it for every row it looks at, and past
// the deadline it throws, which ends the statement with that error.

export const DEADLINE_FUNCTION = 'herald_within_deadline'

/**
 * The condition a bounded query starts its WHERE clause with (true until the deadline). On
 * PostgreSQL the statement_timeout stops the statement (bounded-read.ts): there it is just true.
 */
export const WITHIN_DEADLINE = sql.raw(DIALECT === 'postgres' ? 'true' : `${DEADLINE_FUNCTION}()`)

export interface Deadline {
  /** performance.now() past which the running statement stops; Infinity when none runs. */
  at: number
}

/** Registers the deadline function on a connection. Not deterministic: SQLite must call it per row. */
export function installDeadline(conn: Database, deadline: Deadline) {
  let calls = 0
  conn.function(DEADLINE_FUNCTION, () => {
    // performance.now() every 64 rows keeps the check to a few nanoseconds a row.
    if ((++calls & 63) === 0 && performance.now() > deadline.at)
      throw new Error(`${DEADLINE_FUNCTION}: the statement ran past its time budget`)
    return 1
  })
}
