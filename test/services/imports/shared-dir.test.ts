import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createImportWorker } from '../../../src/services/imports/runner'
import { createTestApp } from '../../helpers/app'

// With HERALD_SHARED_DIR, an upload and the import waiting on it live where every process reaches
// them, so another process can run an import whose own process stopped.

const shared = mkdtempSync(join(tmpdir(), 'herald-shared-'))
afterAll(() => rmSync(shared, { recursive: true, force: true }))

describe('imports with a shared directory', async () => {
  let now = Date.now()
  const t = await createTestApp({ env: { HERALD_SHARED_DIR: shared }, clock: { now: () => now } })
  const imports = createImportWorker(t.ctx)
  const post = async (csv: string) =>
    (
      await t.call('POST', `/api/v1/contacts/imports?client_id=${t.defaultClientId}`, {
        raw: csv,
        headers: { 'content-type': 'text/csv' },
      })
    ).body.data as { id: string; status: string }
  const job = async (id: string) => (await t.call('GET', `/api/v1/contacts/imports/${id}`)).body.data

  test('the upload waits in the shared directory, not the data directory, and is gone once run', async () => {
    const queued = await post('email,first_name\nann@example.com,Ann\nbo@example.com,Bo\n')
    expect(existsSync(join(shared, 'imports', `${queued.id}.csv`))).toBe(true)
    expect(existsSync(join(t.dataDir, 'imports'))).toBe(false)
    await imports.drain()
    expect(await job(queued.id)).toMatchObject({ status: 'completed', inserted: 2 })
    expect(readdirSync(join(shared, 'imports'))).toEqual([])
    expect(readdirSync(join(shared, 'uploads'))).toEqual([])
  })

  test('an import whose file this server cannot read is left to its process, then fails saying why', async () => {
    const queued = await post('email\ncy@example.com\n')
    // As when the upload went to a process on a machine whose disk this one cannot read.
    rmSync(join(shared, 'imports', `${queued.id}.csv`))
    await imports.drain()
    expect((await job(queued.id)).status).toBe('queued')
    now += 10 * 60_000 - 1
    await imports.drain()
    expect((await job(queued.id)).status).toBe('queued')
    // Its process never took it: it is taken here, and fails naming the setting that would help.
    now += 1
    await imports.drain()
    const failed = await job(queued.id)
    expect(failed.status).toBe('failed')
    expect(failed.failure).toContain('the uploaded file is not on this server')
    expect(failed.failure).toContain('HERALD_SHARED_DIR')
  })
})
