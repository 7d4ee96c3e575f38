import { describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../../src/app'
import { loadConfig } from '../../../src/config'
import { createAppContext } from '../../../src/create-context'
import { DIALECT } from '../../../src/db/dialect'
import { silentLogger } from '../../../src/lib/log'
import { WORKER_NAMES } from '../../../src/lib/wakers'
import { createImportWorker } from '../../../src/services/imports/runner'
import { createTestApp } from '../../helpers/app'
import { migratedDatabase } from '../../helpers/pg-database'

/** The store the test app would get: a database of its own when the run is on PostgreSQL. */
const storeEnv = async (): Promise<Record<string, string>> =>
  DIALECT === 'postgres' ? { HERALD_DATABASE_URL: await migratedDatabase() } : { HERALD_DATABASE_URL: '' }

// Liveness answers without I/O; readiness names each check and answers 503 naming the one that
// fails: a worker stopped, a full data volume (a real tmpfs, when this process may mount one).

const failing = (body: { checks: { name: string; ok: boolean }[] }) =>
  body.checks.filter((c) => !c.ok).map((c) => c.name)

/** Every worker but the imports one registered as a running loop; the import worker is real. */
function startWorkers(ctx: Awaited<ReturnType<typeof createTestApp>>['ctx']) {
  for (const name of WORKER_NAMES) if (name !== 'imports') ctx.workers.register(name, () => {})
  return createImportWorker(ctx).start()
}

describe('GET /healthz', () => {
  test('200 with no checks, no credential', async () => {
    const t = await createTestApp()
    const res = await t.call('GET', '/healthz', { key: null })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok', checks: [] })
  })
})

describe('GET /readyz', () => {
  test('200 when every check passes, each named with a detail', async () => {
    const t = await createTestApp()
    const worker = startWorkers(t.ctx)
    const res = await t.call('GET', '/readyz', { key: null })
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('ok')
    expect(res.body.checks.map((c: { name: string }) => c.name)).toEqual([
      'accepting',
      'migrations',
      'database_write',
      'worker_send',
      'worker_webhooks',
      'worker_imports',
      'worker_flows',
      'disk',
    ])
    for (const c of res.body.checks) expect(typeof c.detail).toBe('string')
    await worker.stop()
  })

  test('a stopped worker: 503 naming it, the rest still ok', async () => {
    const t = await createTestApp()
    const worker = startWorkers(t.ctx)
    await worker.stop()
    const res = await t.call('GET', '/readyz', { key: null })
    expect(res.status).toBe(503)
    expect(res.body.status).toBe('fail')
    expect(failing(res.body)).toEqual(['worker_imports'])
    expect(res.body.checks.find((c: { name: string }) => c.name === 'worker_imports').detail).toContain(
      'not running',
    )
  })

  test('a server shutting down is not ready', async () => {
    const t = await createTestApp()
    const worker = startWorkers(t.ctx)
    t.ctx.lifecycle.draining = true
    const res = await t.call('GET', '/readyz', { key: null })
    expect(res.status).toBe(503)
    expect(failing(res.body)).toEqual(['accepting'])
    t.ctx.lifecycle.draining = false
    await worker.stop()
  })

  // A 32 MiB tmpfs as the data directory, filled to its last few pages.
  const mount = tryMountTmpfs()
  test.skipIf(mount === null)('a full data volume: 503 naming the disk check', async () => {
    const dir = mount!
    try {
      const ctx = await createAppContext(
        loadConfig({ data: dir }, { HERALD_PUBLIC_URL: 'http://localhost', ...(await storeEnv()) }),
        {
          log: silentLogger,
        },
      )
      const app = createApp(ctx)
      const worker = startWorkers(ctx as never)
      const ready = async () => {
        const res = await app.handle(new Request('http://localhost/readyz'))
        return { status: res.status, body: await res.json() }
      }
      expect((await ready()).status).toBe(200)
      fill(join(dir, 'filler'))
      const full = await ready()
      expect(full.status).toBe(503)
      expect(failing(full.body)).toContain('disk')
      expect(full.body.checks.find((c: { name: string }) => c.name === 'disk').detail).toMatch(
        /MiB free of 32\.0 MiB/,
      )
      rmSync(join(dir, 'filler'))
      await worker.stop()
      await ctx.store.close()
    } finally {
      execFileSync('umount', ['--lazy', dir]) // lazy: a read thread may still hold the file a moment
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

function tryMountTmpfs(): string | null {
  if (process.getuid?.() !== 0) return null
  const dir = mkdtempSync(join(tmpdir(), 'herald-tmpfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', dir], { stdio: 'ignore' })
    return dir
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return null
  }
}

/** Writes until the volume refuses more (ENOSPC). */
function fill(path: string) {
  const chunk = Buffer.alloc(256 * 1024)
  let size = 0
  for (;;) {
    try {
      writeFileSync(path, chunk, { flag: size === 0 ? 'w' : 'a' })
      size += chunk.length
    } catch {
      return
    }
  }
}
