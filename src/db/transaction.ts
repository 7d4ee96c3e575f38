import type { Database } from 'bun:sqlite'
import { AsyncLocalStorage } from 'node:async_hooks'
import { holdingSavepoint, holdingUntilEnd } from '../lib/after-transaction'
import { lostRace } from './postgres/errors'
import { postgresTransactionsOf } from './postgres/handle'

// Transactions carried through async calls. SQLite has one writer connection per process, so a
// transaction that awaits must own it until it ends: a lock per connection queues the others,
// and AsyncLocalStorage tells a nested call (a verb inside a job's transaction, a hook inside a
// verb) that it already holds it, so it becomes a savepoint instead of waiting on itself.

interface Scope {
  readonly sqlite: Database
  readonly depth: number
}

const scope = new AsyncLocalStorage<Scope>()

/** A FIFO lock: free → taken at once, without a turn of the event loop. */
class WriterLock {
  private held = false
  private readonly waiting: (() => void)[] = []

  /** Null when taken at once; otherwise a promise that resolves once it is ours. */
  take(): Promise<void> | null {
    if (!this.held) {
      this.held = true
      return null
    }
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  get busy(): boolean {
    return this.held
  }

  release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.held = false
  }
}

const locks = new WeakMap<Database, WriterLock>()
function lockOf(sqlite: Database): WriterLock {
  let lock = locks.get(sqlite)
  if (!lock) {
    lock = new WriterLock()
    locks.set(sqlite, lock)
  }
  return lock
}

/** Whether a transaction holds (or waits for) this connection's writer now. */
export function writerBusy(sqlite: Database): boolean {
  return locks.get(sqlite)?.busy ?? false
}

/** Whether the caller runs inside a transaction on this connection. */
export function inTransactionScope(sqlite: Database): boolean {
  return scope.getStore()?.sqlite === sqlite
}

/** Whether the caller runs inside a transaction of this store, on either database. */
export function inAnyTransaction(sqlite: Database): boolean {
  const postgres = postgresTransactionsOf(sqlite)
  return postgres ? postgres.current() !== undefined : inTransactionScope(sqlite)
}

const isPromise = (v: unknown): v is Promise<unknown> =>
  typeof (v as Promise<unknown> | null)?.then === 'function'

/** Runs of a transaction that keeps losing races before its error goes to the caller. */
const RACE_RUNS = 3

/**
 * inTransaction for work that may run again whole (a verb). On PostgreSQL a transaction that
 * lost a race with another process's (a unique key committed first, a deadlock) runs again and
 * then sees what the other committed: a create of the same email answers 409, not 500. Nested in
 * another transaction it is that one's to run again. SQLite has one writer: no race to lose.
 */
export async function inRetriedTransaction<T>(sqlite: Database, fn: () => T | Promise<T>): Promise<T> {
  const postgres = postgresTransactionsOf(sqlite)
  if (!postgres || postgres.current()) return await inTransaction(sqlite, fn)
  for (let run = 1; ; run++) {
    try {
      return await postgres.run(fn)
    } catch (err) {
      if (run >= RACE_RUNS || !lostRace(err)) throw err
    }
  }
}

/**
 * Runs fn in a write transaction on the shared connection and resolves with its result. It
 * begins IMMEDIATE: the write lock is taken (waiting out busy_timeout) before anything is read,
 * so a transaction that reads and then writes never fails with SQLITE_BUSY_SNAPSHOT because
 * another process (the CLI) wrote in between. Nested calls become savepoints, so a verb's
 * transaction composes with its caller's. fn may await; nothing else writes on this connection
 * through inTransaction until it ends. A synchronous fn runs in the same turn when the
 * connection is free.
 */
export async function inTransaction<T>(sqlite: Database, fn: () => T | Promise<T>): Promise<T> {
  const postgres = postgresTransactionsOf(sqlite)
  if (postgres) return await postgres.run(fn)
  const outer = scope.getStore()
  if (outer?.sqlite === sqlite) return savepoint(sqlite, outer.depth + 1, fn)
  const lock = lockOf(sqlite)
  const waited = lock.take()
  if (waited) await waited
  try {
    // BEGIN and COMMIT run in the scope too: they belong to the writer like the body.
    return await holdingUntilEnd(sqlite, () =>
      scope.run({ sqlite, depth: 0 }, async () => {
        sqlite.run('BEGIN IMMEDIATE')
        try {
          const out = fn()
          const result = isPromise(out) ? await out : out
          sqlite.run('COMMIT')
          return result
        } catch (err) {
          rollback(sqlite, 'ROLLBACK')
          throw err
        }
      }),
    )
  } finally {
    lock.release()
  }
}

/**
 * Runs fn holding the connection's writer lock, outside any transaction: at once when the lock
 * is free, else once the open transaction has ended (then the answer is a promise).
 */
export function underWriterLock<T>(sqlite: Database, fn: () => T): T | Promise<T> {
  const lock = lockOf(sqlite)
  const waited = lock.take()
  const held = () => {
    try {
      return fn()
    } finally {
      lock.release()
    }
  }
  return waited ? waited.then(held) : held()
}

async function savepoint<T>(sqlite: Database, depth: number, fn: () => T | Promise<T>): Promise<T> {
  const name = `herald_sp${depth}`
  sqlite.run(`SAVEPOINT ${name}`)
  return await holdingSavepoint(async () => {
    try {
      const out = scope.run({ sqlite, depth }, fn)
      const result = isPromise(out) ? await out : out
      sqlite.run(`RELEASE ${name}`)
      return result
    } catch (err) {
      rollback(sqlite, `ROLLBACK TO ${name}`)
      rollback(sqlite, `RELEASE ${name}`)
      throw err
    }
  })
}

/** SQLite may already have rolled back (a full disk, an interrupted statement): that is fine. */
function rollback(sqlite: Database, statement: string): void {
  try {
    sqlite.run(statement)
  } catch {}
}
