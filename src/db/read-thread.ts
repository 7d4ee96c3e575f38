import { Database } from 'bun:sqlite'
import { DEADLINE_FUNCTION, type Deadline, installDeadline } from './deadline'
import type { FromReadThread, ToReadThread } from './read-protocol'

// A read thread (bounded-read.ts starts them; an entry point of the build, see scripts/build.ts):
// runs one read-only statement at a time on a connection of its own to the WAL database, so a
// long count never holds the serving thread's event loop. bun:sqlite has no statement timeout
// and no sqlite3_interrupt, and terminating a worker does not stop a statement in progress, so
// the statement stops itself: the queries call a function once per row that throws past the
// job's deadline.

declare const self: Worker

let conn: Database | null = null
const deadline: Deadline = { at: Number.POSITIVE_INFINITY }

const post = (m: FromReadThread) => self.postMessage(m)

self.onmessage = (event: MessageEvent<ToReadThread>) => {
  const m = event.data
  if (m.kind === 'setup') {
    conn = new Database(m.file, { readonly: true, strict: true })
    conn.run('PRAGMA busy_timeout = 5000')
    conn.run('PRAGMA query_only = 1')
    installDeadline(conn, deadline)
    return
  }
  if (!conn) return post({ kind: 'failed', id: m.id, message: 'the read thread has no connection' })
  deadline.at = performance.now() + m.budgetMs
  try {
    const rows = conn.query(m.sql).all(...(m.params as never[]))
    post({ kind: 'rows', id: m.id, rows })
  } catch (err) {
    const message = String((err as Error)?.message ?? err)
    if (message.includes(DEADLINE_FUNCTION)) post({ kind: 'timeout', id: m.id })
    else post({ kind: 'failed', id: m.id, message })
  } finally {
    deadline.at = Number.POSITIVE_INFINITY
  }
}
