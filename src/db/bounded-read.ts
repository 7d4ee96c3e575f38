import type { Database } from 'bun:sqlite'
import { type SQL, sql } from 'drizzle-orm'
import type { Db } from './client'
import { type Deadline, installDeadline } from './deadline'
import { DIALECT } from './dialect'
import { sqlStateOf } from './postgres/errors'
import type { FromReadThread, ReadJob, ToReadThread } from './read-protocol'

// Reads that may be slow (a segment's count over every contact of a client) run on read threads
// (read-thread.ts), each with its own read-only connection to the same WAL database, so the
// serving thread's event loop keeps answering meanwhile. Each read has a time budget counted from
// the call (waiting for a free thread included): the statement stops itself past it (see
// deadline.ts), and a thread that does not answer shortly after is terminated and replaced.
// On PostgreSQL none of that is needed: the read runs on the pool under a statement_timeout.

/**
 * The read thread's module. From source it sits next to this one; in the executable it is an
 * entry point of its own (scripts/build.ts) under the bundle's root (src/), while this module's
 * import.meta.url is the executable's: /$bunfs/root/<name>.
 */
const READ_THREAD = import.meta.url.includes('/$bunfs/')
  ? new URL('./db/read-thread.ts', import.meta.url)
  : new URL('./read-thread.ts', import.meta.url)

/** Threads per database: at least one core is left to the serving thread (and at most two used). */
const MAX_THREADS = Math.max(1, Math.min(2, navigator.hardwareConcurrency - 1))
/** How long past its budget a thread may take to report the stop before it is replaced. */
const GRACE_MS = 500

/** The read did not finish within its budget. */
export class ReadTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`the read took longer than ${budgetMs} ms`)
  }
}

type Dialect = { sqlToQuery(s: SQL): { sql: string; params: unknown[] } }

interface Pending {
  id: number
  sql: string
  params: unknown[]
  deadline: number
  budgetMs: number
  resolve(rows: unknown[]): void
  reject(err: Error): void
}

interface Thread {
  job: Pending | null
  run(job: Pending): void
}

interface Pool {
  threads: Thread[]
  queue: Pending[]
  /** Set when a thread cannot start (an in-memory database, a build without the module). */
  inline: boolean
}

const pools = new WeakMap<Database, Pool>()
let nextId = 0

function poolOf(sqlite: Database): Pool {
  let pool = pools.get(sqlite)
  if (!pool) {
    const file = sqlite.filename
    pool = { threads: [], queue: [], inline: !file || file === ':memory:' }
    pools.set(sqlite, pool)
  }
  return pool
}

function startThread(sqlite: Database, pool: Pool): Thread | null {
  let worker: Worker
  try {
    worker = new Worker(READ_THREAD, { smol: true })
  } catch {
    pool.inline = true
    return null
  }
  // Idle threads must not keep a process (a CLI command, a test run) alive.
  ;(worker as Worker & { unref(): void }).unref()
  let timer: ReturnType<typeof setTimeout> | null = null
  const send = (m: ToReadThread) => worker.postMessage(m)
  const thread: Thread = {
    job: null,
    run(job) {
      thread.job = job
      const left = Math.max(1, job.deadline - performance.now())
      timer = setTimeout(async () => await drop(new ReadTimeout(job.budgetMs)), left + GRACE_MS)
      send({ kind: 'read', id: job.id, sql: job.sql, params: job.params, budgetMs: left } satisfies ReadJob)
    },
  }
  const drop = async (err: Error) => {
    if (timer) clearTimeout(timer)
    pool.threads = pool.threads.filter((t) => t !== thread)
    thread.job?.reject(err)
    thread.job = null
    worker.terminate()
    await pump(sqlite, pool)
  }
  worker.onmessage = async (event: MessageEvent<FromReadThread>) => {
    const m = event.data
    const job = thread.job
    if (!job || m.id !== job.id) return
    if (timer) clearTimeout(timer)
    thread.job = null
    if (m.kind === 'rows') job.resolve(m.rows)
    else if (m.kind === 'timeout') job.reject(new ReadTimeout(job.budgetMs))
    else job.reject(new Error(m.message))
    await pump(sqlite, pool)
  }
  worker.onerror = async (event) => {
    event.preventDefault()
    await drop(new Error(`the read thread failed: ${event.message}`))
  }
  worker.addEventListener('close', async () => {
    if (pool.threads.includes(thread)) await drop(new Error('the read thread ended'))
  })
  send({ kind: 'setup', file: sqlite.filename })
  pool.threads.push(thread)
  return thread
}

/** Hands queued reads to idle threads, starting threads up to MAX_THREADS. */
async function pump(sqlite: Database, pool: Pool) {
  if (pool.inline) return await runQueuedInline(sqlite, pool)
  while (pool.queue.length > 0) {
    const job = pool.queue[0]!
    if (performance.now() >= job.deadline) {
      pool.queue.shift()
      job.reject(new ReadTimeout(job.budgetMs))
      continue
    }
    let thread = pool.threads.find((t) => t.job === null)
    if (!thread && pool.threads.length < MAX_THREADS) thread = startThread(sqlite, pool) ?? undefined
    if (pool.inline) return await runQueuedInline(sqlite, pool)
    if (!thread) return
    pool.queue.shift()
    thread.run(job)
  }
}

const inlineDeadlines = new WeakMap<Database, Deadline>()

/**
 * Without a thread (an in-memory database, used by tests and one-off commands), the read runs
 * on the caller's connection, still stopped at its deadline.
 */
async function runQueuedInline(sqlite: Database, pool: Pool) {
  let deadline = inlineDeadlines.get(sqlite)
  if (!deadline) {
    deadline = { at: Number.POSITIVE_INFINITY }
    installDeadline(sqlite, deadline)
    inlineDeadlines.set(sqlite, deadline)
  }
  for (let job = pool.queue.shift(); job; job = pool.queue.shift()) {
    deadline.at = job.deadline
    try {
      job.resolve(await sqlite.query(job.sql).all(...(job.params as never[])))
    } catch (err) {
      const timedOut = performance.now() > job.deadline
      job.reject(timedOut ? new ReadTimeout(job.budgetMs) : (err as Error))
    } finally {
      deadline.at = Number.POSITIVE_INFINITY
    }
  }
}

/**
 * The rows of a read-only query, run off the event loop within `budgetMs` (else ReadTimeout).
 * The query must start its WHERE clause with WITHIN_DEADLINE (deadline.ts) for the statement
 * itself to stop in time.
 */
export async function boundedAll<T>(db: Db, query: SQL, budgetMs: number): Promise<T[]> {
  if (DIALECT === 'postgres') return await postgresBoundedAll<T>(db, query, budgetMs)
  const q = (db as unknown as { dialect: Dialect }).dialect.sqlToQuery(query)
  const { promise, resolve, reject } = Promise.withResolvers<T[]>()
  const pool = poolOf(db.$client)
  pool.queue.push({
    id: ++nextId,
    sql: q.sql,
    params: q.params,
    deadline: performance.now() + budgetMs,
    budgetMs,
    resolve: resolve as (rows: unknown[]) => void,
    reject,
  })
  await pump(db.$client, pool)
  return promise
}

interface PgTx {
  execute(query: SQL): Promise<unknown[]>
}

/**
 * On PostgreSQL the server stops the statement itself: the read runs on a pool connection (no
 * thread, the event loop only awaits it) in a transaction whose statement_timeout is the budget.
 * Inside a caller's transaction it is a savepoint, so the timeout is set back after it.
 */
async function postgresBoundedAll<T>(db: Db, query: SQL, budgetMs: number): Promise<T[]> {
  const pg = db as unknown as { transaction<R>(fn: (tx: PgTx) => Promise<R>): Promise<R> }
  const ms = Math.max(1, Math.ceil(budgetMs))
  try {
    return await pg.transaction(async (tx) => {
      await tx.execute(sql.raw(`SET LOCAL statement_timeout = ${ms}`))
      const rows = (await tx.execute(query)) as T[]
      await tx.execute(sql.raw('SET LOCAL statement_timeout TO DEFAULT'))
      return [...rows]
    })
  } catch (err) {
    if (isStatementTimeout(err)) throw new ReadTimeout(budgetMs)
    throw err
  }
}

/** PostgreSQL's query_canceled (57014), as the driver reports it, or wrapped by drizzle. */
function isStatementTimeout(err: unknown): boolean {
  if (sqlStateOf(err) === '57014') return true
  for (let e = err as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.message === 'string' && e.message.includes('statement timeout')) return true
  return false
}
