import { Database } from 'bun:sqlite'
import { afterAll, beforeAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SQL } from 'bun'
import { ENTRY_POINTS } from '../../scripts/entry-points'
import { DIALECT } from '../../src/db/dialect'
import { migratedDatabase } from './pg-database'
import { freePort } from './ports'

// The compiled executable for end-to-end tests: HERALD_BINARY if given (CI passes dist/herald),
// else built once per test file into a temp dir. Runs from a directory with nothing beside it.

const root = join(import.meta.dir, '../..')

export interface BinaryFixture {
  /** Scratch directory, also the working directory of every run. */
  work: string
  path(): string
}

export function useBinary(prefix: string): BinaryFixture {
  const work = mkdtempSync(join(tmpdir(), prefix))
  let binary = process.env.HERALD_BINARY ?? ''
  beforeAll(() => {
    if (binary) return
    binary = join(work, 'herald')
    const build = Bun.spawnSync(
      // The same entry points as scripts/build.ts.
      ['bun', 'build', '--compile', ...ENTRY_POINTS.map((e) => join(root, e)), '--outfile', binary],
      {
        cwd: root,
      },
    )
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
  }, 120_000)
  afterAll(() => rmSync(work, { recursive: true, force: true }))
  return { work, path: () => binary }
}

export { freePort }

const databases = new Map<string, Promise<string>>()

/**
 * The env a run of the binary on `dataDir` gets. A test process on PostgreSQL holds only a
 * placeholder HERALD_DATABASE_URL, which a child would inherit: there each data directory gets a
 * migrated database of its own instead, the same one on every later run on that directory (a
 * restart after kill -9, a CLI command), as an instance keeps its database. An env that names its
 * own URL, or none (SQLite), is left as it is.
 */
export async function storeEnv<E extends Record<string, string | undefined>>(
  dataDir: string,
  env: E,
): Promise<E> {
  if (DIALECT !== 'postgres' || env.HERALD_DATABASE_URL !== process.env.HERALD_DATABASE_URL) return env
  const key = resolve(dataDir)
  const url = databases.get(key) ?? migratedDatabase()
  databases.set(key, url)
  return { ...env, HERALD_DATABASE_URL: await url }
}

/**
 * A tag that runs one raw query on the store of a binary's data directory from outside it (its
 * SQLite file, or its PostgreSQL database) and answers the rows; values become parameters.
 * Counts are CAST … AS INTEGER so they read as numbers on both.
 */
export function storeOf(dataDir: string) {
  return async <T>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T[]> => {
    if (DIALECT === 'postgres') {
      const { HERALD_DATABASE_URL: url } = await storeEnv(dataDir, process.env)
      const sql = new SQL({ url, max: 1 })
      try {
        return [...(await sql(strings, ...values))] as T[]
      } finally {
        await sql.close()
      }
    }
    const db = new Database(join(dataDir, 'herald.db'))
    try {
      return db.query(strings.join('?')).all(...(values as string[])) as T[]
    } finally {
      db.close()
    }
  }
}

/**
 * `herald <args>` run to its end from the scratch directory, on the store of the data directory
 * it works on (`--data`, else HERALD_DATA_DIR, else the default beside it).
 */
export async function runBinary(bin: BinaryFixture, args: string[], env: Record<string, string | undefined>) {
  const flag = args.indexOf('--data')
  const dataDir =
    (flag >= 0 ? args[flag + 1] : undefined) ?? env.HERALD_DATA_DIR ?? join(bin.work, 'herald-data')
  const p = Bun.spawnSync([bin.path(), ...args], { cwd: bin.work, env: await storeEnv(dataDir, env) })
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() }
}

/** Starts `herald serve` on a free loopback port and waits until /api/v1/health answers. */
export async function serveBinary(
  bin: BinaryFixture,
  dataDir: string,
  env: Record<string, string>,
  output: 'pipe' | 'ignore' = 'pipe',
) {
  const port = freePort()
  const proc = Bun.spawn(
    [bin.path(), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir],
    {
      cwd: bin.work,
      env: await storeEnv(dataDir, env),
      stdout: output,
      stderr: output,
    },
  )
  const base = `http://127.0.0.1:${port}`
  // Up to 30 s, unless it exits first: a start on a loaded 2-core box (more so on PostgreSQL,
  // which opens a pool and checks its migrations) can pass 10 s.
  await healthy(base, 30_000, proc)
  return { proc, base, port }
}

/**
 * Waits (up to `timeoutMs`, or until `proc` exits) until the server at `base` answers
 * /api/v1/health; the caller checks it did.
 */
export async function healthy(
  base: string,
  timeoutMs = 10_000,
  proc?: { exitCode: number | null },
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && (proc?.exitCode ?? null) === null) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return
    } catch {}
    await Bun.sleep(20)
  }
}
