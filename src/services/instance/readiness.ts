import { statfsSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { DIALECT } from '../../db/dialect'
import { embeddedMigrations, embeddedPgMigrations } from '../../db/migrations.generated'
import { rawRows } from '../../db/raw'
import type { Awaitable } from '../../lib/awaitable'
import { WORKER_NAMES } from '../../lib/wakers'

// What GET /readyz answers: whether this process can do its work now. Each check is named so a
// 503 says which one failed. All of them are cheap (one indexed read, one page written, one
// statfs): an orchestrator probes every few seconds.

export interface Check {
  name: string
  ok: boolean
  detail: string
}

export interface Readiness {
  status: 'ok' | 'fail'
  checks: Check[]
}

/** Free space below both of these fails readiness: a small volume needs its 5 %, a big one 1 GiB. */
export const MIN_FREE_BYTES = 1024 ** 3
export const MIN_FREE_SHARE = 0.05

export interface DiskSpace {
  free: number
  total: number
}

/** The data volume's free and total bytes (as an unprivileged process may use them). */
export function diskSpace(path: string): DiskSpace {
  const s = statfsSync(path)
  return { free: s.bavail * s.bsize, total: s.blocks * s.bsize }
}

export async function readiness(
  app: AppContext,
  disk: (path: string) => DiskSpace = diskSpace,
): Promise<Readiness> {
  const checks = [
    // A stopping server finishes what it holds but takes nothing new: send traffic elsewhere.
    {
      name: 'accepting',
      ok: !app.lifecycle.draining,
      detail: app.lifecycle.draining ? 'shutting down' : 'accepting requests',
    },
    await attempt('migrations', async () => await migrationsCheck(app)),
    await attempt('database_write', async () => await writeCheck(app)),
    ...WORKER_NAMES.map((name) => ({
      name: `worker_${name}`,
      ok: app.workers.running(name),
      detail: app.workers.running(name) ? 'running' : `the ${name} worker is not running`,
    })),
    await attempt('disk', () => diskCheck(disk(app.config.dataDir))),
  ]
  return { status: checks.every((c) => c.ok) ? 'ok' : 'fail', checks }
}

/** A check that throws fails with the error's message. */
async function attempt(name: string, run: () => Awaitable<Omit<Check, 'name'>>): Promise<Check> {
  try {
    return { name, ...(await run()) }
  } catch (err) {
    return { name, ok: false, detail: (err as Error)?.message ?? String(err) }
  }
}

async function migrationsCheck(app: AppContext) {
  const postgres = DIALECT === 'postgres'
  const rows = postgres
    ? await rawRows<{ tag: string }>(app.db, sql`SELECT tag FROM herald_migrations`)
    : await app.sqlite.query<{ tag: string }, []>('SELECT tag FROM herald_migrations').all()
  const applied = new Set(rows.map((r) => r.tag))
  const pending = (postgres ? embeddedPgMigrations : embeddedMigrations)
    .filter((m) => !applied.has(m.tag))
    .map((m) => m.tag)
  return pending.length === 0
    ? { ok: true, detail: `${applied.size} applied` }
    : { ok: false, detail: `pending: ${pending.join(', ')}` }
}

/**
 * Writes the header's user_version back as it was and reads it again: a committed write (one
 * page to the WAL) that changes nothing, and fails when the file is read-only, locked or the
 * disk is full.
 */
async function writeCheck(app: AppContext) {
  if (DIALECT === 'postgres') return await postgresWriteCheck(app)
  const read = async () =>
    (await app.sqlite.query<{ user_version: number }, []>('PRAGMA user_version').get())!.user_version
  const started = performance.now()
  const version = await read()
  await app.sqlite.run(`PRAGMA user_version = ${Math.trunc(version)}`)
  if ((await read()) !== version) return { ok: false, detail: 'user_version read back differs' }
  return { ok: true, detail: `${(performance.now() - started).toFixed(1)} ms` }
}

/**
 * On PostgreSQL: whether the server takes writes (not a standby, not read-only), read from one
 * pool connection, which also proves the pool answers. Nothing is written.
 */
async function postgresWriteCheck(app: AppContext) {
  const started = performance.now()
  const [r] = await rawRows<{ standby: boolean; read_only: string }>(
    app.db,
    sql`SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS read_only`,
  )
  if (r?.standby) return { ok: false, detail: 'the PostgreSQL server is a standby (read-only)' }
  if (r?.read_only === 'on') return { ok: false, detail: 'the PostgreSQL session is read-only' }
  return { ok: true, detail: `${(performance.now() - started).toFixed(1)} ms` }
}

function diskCheck({ free, total }: DiskSpace) {
  const share = total > 0 ? free / total : 0
  const detail = `${formatBytes(free)} free of ${formatBytes(total)} (${(share * 100).toFixed(1)} %)`
  return { ok: free >= MIN_FREE_BYTES || share >= MIN_FREE_SHARE, detail }
}

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`
  return `${(n / 1024 ** 2).toFixed(1)} MiB`
}
