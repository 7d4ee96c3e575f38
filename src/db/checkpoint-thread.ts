import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import type { CheckpointSetup, FromCheckpointThread, ToCheckpointThread } from './checkpoint-protocol'

// The WAL checkpoint thread (checkpointer.ts starts it; an entry point of the build, see
// scripts/build.ts). SQLite's automatic checkpoint runs inside whichever commit crosses 1,000
// WAL pages, on the committing thread: under send load that commit took up to ~300 ms of the
// event loop. Here the copy of WAL frames into the data file happens on a thread of its own,
// with its own connection, while the main connection runs with wal_autocheckpoint = 0.
//
// PASSIVE never blocks writers or readers: it copies what it can and gives up on frames a
// reader still needs, so it runs every tick. Only when the WAL file has grown past
// truncateBytes (a reader kept PASSIVE from finishing for a long while, or a burst outran it)
// does it ask for TRUNCATE, which waits for readers and blocks writers while pending; its busy
// timeout is kept short so a writer on the main thread waits at most about that long, and a
// TRUNCATE that cannot get through simply leaves it to the next tick.

declare const self: Worker

const TRUNCATE_BUSY_MS = 100

let db: Database | null = null
let timer: ReturnType<typeof setInterval> | null = null
/** The last PASSIVE result reported: a WAL that is done stays so until the next write. */
let last = ''

const post = (m: FromCheckpointThread) => self.postMessage(m)

function walSize(file: string): number {
  try {
    return statSync(`${file}-wal`).size
  } catch {
    return 0
  }
}

function checkpoint(conn: Database, mode: 'PASSIVE' | 'TRUNCATE') {
  const row = conn.query(`PRAGMA wal_checkpoint(${mode})`).get() as {
    busy: number
    log: number
    checkpointed: number
  }
  return row
}

function tick(conn: Database, setup: CheckpointSetup) {
  try {
    if (walSize(setup.file) > setup.truncateBytes) {
      const r = checkpoint(conn, 'TRUNCATE')
      if (!r.busy) return post({ kind: 'checkpointed', mode: 'TRUNCATE', log: r.log, moved: r.checkpointed })
    }
    const r = checkpoint(conn, 'PASSIVE')
    // log -1: not in WAL mode; log == 0: an empty (reset) WAL, nothing to report.
    const seen = `${r.log}/${r.checkpointed}`
    if (r.log > 0 && r.checkpointed > 0 && seen !== last) {
      last = seen
      post({ kind: 'checkpointed', mode: 'PASSIVE', log: r.log, moved: r.checkpointed })
    }
  } catch (err) {
    // A busy data file is normal under load; the next tick tries again.
    if (!String(err).includes('SQLITE_BUSY') && !String(err).includes('locked'))
      post({ kind: 'failed', message: String(err) })
  }
}

self.onmessage = (event: MessageEvent<ToCheckpointThread>) => {
  const m = event.data
  if (m.kind === 'setup') {
    const conn = new Database(m.file, { strict: true })
    conn.run(`PRAGMA busy_timeout = ${TRUNCATE_BUSY_MS}`)
    // This connection never writes rows; it must never run a checkpoint of its own either.
    conn.run('PRAGMA wal_autocheckpoint = 0')
    db = conn
    timer = setInterval(() => tick(conn, m), m.intervalMs)
    post({ kind: 'ready' })
  } else if (m.kind === 'stop') {
    if (timer) clearInterval(timer)
    timer = null
    db?.close()
    db = null
    post({ kind: 'stopped' })
  }
}
