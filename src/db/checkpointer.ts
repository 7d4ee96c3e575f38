import type { Database } from 'bun:sqlite'
import type { Logger } from '../lib/log'
import type { FromCheckpointThread, ToCheckpointThread } from './checkpoint-protocol'
import { postgresTransactionsOf } from './postgres/handle'

// Moves WAL checkpointing off the serving process's event loop (see checkpoint-thread.ts for
// why). The main connection keeps SQLite's automatic checkpoint until the thread says it is
// ready, and gets it back (with a warning) if the thread fails or dies: at no moment is the
// WAL left with nobody to fold it back. Durability is untouched: a commit is durable once it
// is in the WAL (journal_mode=WAL, synchronous as set in client.ts); a checkpoint only copies
// committed frames into the data file, whichever thread runs it.

/**
 * The thread's module. From source it sits next to this one; in the executable it is an entry
 * point of its own (scripts/build.ts) under the bundle's root (src/), while this module's
 * import.meta.url is the executable's: /$bunfs/root/<name>.
 */
const CHECKPOINT_THREAD = import.meta.url.includes('/$bunfs/')
  ? new URL('./db/checkpoint-thread.ts', import.meta.url)
  : new URL('./checkpoint-thread.ts', import.meta.url)

/** SQLite's default wal_autocheckpoint (pages), restored when the thread is not there. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000

/** WAL frames past which the main connection finishes a PASSIVE of the thread (see onmessage). */
const RESET_FRAMES = SQLITE_DEFAULT_AUTOCHECKPOINT

export interface CheckpointerOptions {
  /** Milliseconds between PASSIVE checkpoints (default 100: each is a chance to reuse the WAL from its start). */
  intervalMs?: number
  /** WAL file size above which the thread resets it with TRUNCATE (default 64 MB). */
  truncateBytes?: number
  /** The thread's module (tests give a broken one to drive the fallback). */
  url?: URL | string
  /** Called with each checkpoint the thread reports (tests). */
  onCheckpoint?: (m: Extract<FromCheckpointThread, { kind: 'checkpointed' }>) => void
}

export interface Checkpointer {
  /** Resolves once the thread runs (true) or its start failed and the fallback is on (false). */
  readonly started: Promise<boolean>
  /** True while the thread does the checkpoints (autocheckpoint 0 on the main connection). */
  active(): boolean
  /** Stops the thread and gives the main connection SQLite's automatic checkpoint back. */
  stop(): Promise<void>
}

export async function startCheckpointer(
  sqlite: Database,
  file: string,
  log: Logger,
  options: CheckpointerOptions = {},
): Promise<Checkpointer> {
  // PostgreSQL keeps its own WAL: there is no file of ours to checkpoint, so no thread either.
  if (postgresTransactionsOf(sqlite))
    return { started: Promise.resolve(false), active: () => false, stop: async () => {} }
  let active = false
  let stopping = false
  const { promise: started, resolve: settle } = Promise.withResolvers<boolean>()
  const { promise: done, resolve: stopped } = Promise.withResolvers<void>()

  let ended = false
  const fallBack = async (reason: string) => {
    if (ended) return
    ended = true
    const wasActive = active
    active = false
    await sqlite.run(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`)
    if (!stopping)
      log.warn('WAL checkpoint thread unavailable; SQLite checkpoints automatically on commit', {
        reason,
        wasActive,
      })
    settle(false)
    stopped()
  }

  let worker: Worker
  try {
    // smol: a small heap is all the thread needs (it holds one connection and a timer).
    worker = new Worker(options.url ?? CHECKPOINT_THREAD, { smol: true })
  } catch (err) {
    await fallBack(String(err))
    return { started, active: () => false, stop: async () => {} }
  }
  const send = (m: ToCheckpointThread) => worker.postMessage(m)
  worker.onmessage = async (event: MessageEvent<FromCheckpointThread>) => {
    const m = event.data
    if (m.kind === 'ready') {
      if (stopping) return
      await sqlite.run('PRAGMA wal_autocheckpoint = 0')
      active = true
      settle(true)
    } else if (m.kind === 'checkpointed') {
      // The WAL is reused from its start only by a write that begins when every frame is
      // copied, which the thread's PASSIVE alone never sees under steady writes (the WAL then
      // grows until TRUNCATE, which holds writers off 50-110 ms). Right after a PASSIVE of the
      // thread, between transactions, this connection copies the few frames written since
      // (a short PASSIVE of its own), so the next write restarts the WAL.
      if (m.mode === 'PASSIVE' && m.log >= RESET_FRAMES && active && !stopping)
        await sqlite.query('PRAGMA wal_checkpoint(PASSIVE)').get()
      options.onCheckpoint?.(m)
    } else if (m.kind === 'failed') log.warn('WAL checkpoint failed; retrying', { error: m.message })
    else if (m.kind === 'stopped') {
      worker.terminate()
    }
  }
  worker.onerror = async (event) => {
    event.preventDefault()
    await fallBack(event.message || 'error')
    worker.terminate()
  }
  worker.addEventListener('close', async () => {
    if (!stopping) await fallBack('thread ended')
    else {
      ended = true
      stopped()
    }
  })
  send({
    kind: 'setup',
    file,
    intervalMs: options.intervalMs ?? 100,
    truncateBytes: options.truncateBytes ?? 64 * 1024 * 1024,
  })

  return {
    started,
    active: () => active,
    async stop() {
      if (stopping) return done
      stopping = true
      // The main connection checkpoints again from here on (the store's close does the last).
      active = false
      await sqlite.run(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`)
      settle(false)
      send({ kind: 'stop' })
      await done
    },
  }
}
