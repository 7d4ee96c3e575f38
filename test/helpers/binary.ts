import { afterAll, beforeAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENTRY_POINTS } from '../../scripts/entry-points'
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
      env,
      stdout: output,
      stderr: output,
    },
  )
  const base = `http://127.0.0.1:${port}`
  await healthy(base)
  return { proc, base, port }
}

/** Waits (up to `timeoutMs`) until the server at `base` answers /api/v1/health; the caller checks it did. */
export async function healthy(base: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) return
    } catch {}
    await Bun.sleep(20)
  }
}
