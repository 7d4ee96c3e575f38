import { afterAll, describe, expect, test } from 'bun:test'
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../src/db/dialect'
import { errorResponse } from '../../src/http/rest/respond'
import { createTestApp } from '../helpers/app'
import { serveBinary, useBinary } from '../helpers/binary'
import { runSql } from '../helpers/raw-sql'
import { useSmallVolume } from '../helpers/small-volume'
import { storeEnv } from '../helpers/store-env'

// Uploads and a full data volume, against the built binary: a multipart import is streamed to
// disk (memory does not grow with the upload), an upload that does not fit on the volume is a
// 507 and the server serves on, spool files a crash left are removed at start, and a database
// that cannot write answers 507 while reads go on.

const bin = useBinary('herald-sec-disk-')
const volume = useSmallVolume(40)
const KEY = `hrld_${'Disk0Full1Key2'.repeat(3)}`
const env = { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: KEY } as Record<string, string>
const MB = 1024 * 1024

const running = new Set<Subprocess>()
afterAll(async () => {
  for (const proc of running) {
    proc.kill('SIGKILL')
    await proc.exited
  }
})

// On a PostgreSQL run each data directory gets a database of its own, as it gets a file on SQLite.
const stores = new Map<string, Record<string, string>>()

async function start(dataDir: string) {
  let store = stores.get(dataDir)
  if (!store) {
    store = await storeEnv()
    stores.set(dataDir, store)
  }
  const served = await serveBinary(bin, dataDir, { ...env, ...store }, 'ignore')
  running.add(served.proc)
  const stop = async () => {
    served.proc.kill('SIGTERM')
    await served.proc.exited
    running.delete(served.proc)
  }
  return { ...served, stop }
}

async function call(base: string, method: string, path: string, body?: BodyInit, type = 'application/json') {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': type },
    body,
  })
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  return { status: res.status, body: (await res.json()) as any }
}

const health = async (base: string) => (await fetch(`${base}/api/v1/health`)).status

/** kB figures of /proc/<pid>/status (VmRSS now, VmHWM the peak since start). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN)
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

/**
 * `megabytes` of CSV that fails at its header (no email column): the import worker gives up at
 * once, so the peak measured is the upload's alone.
 */
function csvOf(megabytes: number): Uint8Array<ArrayBuffer> {
  const line = new TextEncoder().encode(`${'n'.repeat(99)}\n`)
  const out = new Uint8Array(megabytes * MB)
  for (let i = 0; i + line.length <= out.length; i += line.length) out.set(line, i)
  out.fill(10, out.length - (out.length % line.length))
  return out
}

function multipartOf(csv: Uint8Array<ArrayBuffer>): { body: Blob; type: string } {
  const boundary = '----herald-disk-test-boundary'
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`
  return {
    body: new Blob([head, csv, `\r\n--${boundary}--\r\n`]),
    type: `multipart/form-data; boundary=${boundary}`,
  }
}

/** The upload's peak memory on a fresh server: VmHWM after the answer minus VmRSS before the upload. */
async function uploadPeak(dataDir: string, body: BodyInit, type: string) {
  const server = await start(dataDir)
  try {
    const clients = await call(server.base, 'GET', '/api/v1/clients')
    // Start-up peaks above what an upload adds: the peak is reset to the current size first.
    writeFileSync(`/proc/${server.proc.pid}/clear_refs`, '5')
    const before = memoryOf(server.proc.pid)
    const res = await call(
      server.base,
      'POST',
      `/api/v1/contacts/imports?client_id=${clients.body.data[0].id}`,
      body,
      type,
    )
    const after = memoryOf(server.proc.pid)
    expect(res.status).toBe(200)
    return { growthMb: (after.peak - before.rss) / 1024, peakMb: after.peak / 1024 }
  } finally {
    await server.stop()
  }
}

/** Runs `fn` on a fresh data directory on the small volume, removed after (its files take the room). */
async function onVolume(name: string, fn: (data: string) => Promise<void>) {
  const data = join(volume.dir, name)
  try {
    await fn(data)
  } finally {
    rmSync(data, { recursive: true, force: true })
  }
}

const files = (dir: string) => (existsSync(dir) ? readdirSync(dir) : [])

/** Writes 1 MB blocks to `file` until the volume refuses one (bounded by the volume's size). */
function fill(file: string, limitMb: number) {
  const fd = openSync(file, 'w')
  const block = new Uint8Array(MB).fill(120)
  try {
    for (let i = 0; i < limitMb; i++) writeSync(fd, block)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
    // The last partial block: whatever kilobytes are left.
    const small = new Uint8Array(4096).fill(120)
    for (let i = 0; i < 256; i++)
      try {
        writeSync(fd, small)
      } catch {
        break
      }
  } finally {
    closeSync(fd)
  }
}

describe('security: uploads and a full data volume (binary)', () => {
  test('15. a 100 MB multipart import is streamed to disk: its peak memory is that of the same CSV as text/csv', async () => {
    const csv = csvOf(100)
    const plain = await uploadPeak(join(bin.work, 'd15-csv'), new Blob([csv]), 'text/csv')
    const form = multipartOf(csv)
    const multipart = await uploadPeak(join(bin.work, 'd15-multipart'), form.body, form.type)
    console.log(
      `15. 100 MB import, peak RSS growth: text/csv ${plain.growthMb.toFixed(0)} MB (peak ${plain.peakMb.toFixed(0)} MB), multipart ${multipart.growthMb.toFixed(0)} MB (peak ${multipart.peakMb.toFixed(0)} MB)`,
    )
    // Buffered, a multipart body cost about three times its size (≈ 300 MB more than text/csv).
    // Peaks, not growth: a fresh server's size settles at its own pace, the peak is what matters.
    expect(multipart.peakMb).toBeLessThan(plain.peakMb + 60)
  }, 120_000)

  test('17. an upload larger than the free space → 507 INSUFFICIENT_STORAGE, no spool file left, the server serves on; stale spools are removed at start', async () => {
    if (!volume.mounted) return
    await onVolume('d17', async (data) => {
      let server = await start(data)
      const clients = await call(server.base, 'GET', '/api/v1/clients')
      const q = `?client_id=${clients.body.data[0].id}`
      for (const [what, { body, type }] of [
        ['text/csv', { body: new Blob([csvOf(44)]), type: 'text/csv' }],
        ['multipart', multipartOf(csvOf(44))],
      ] as const) {
        const res = await call(server.base, 'POST', `/api/v1/contacts/imports${q}`, body, type)
        expect({ what, status: res.status, code: res.body.error?.code }).toEqual({
          what,
          status: 507,
          code: 'INSUFFICIENT_STORAGE',
        })
        expect(res.body.error.message).toContain('the data volume is full')
        expect(res.body.error.request_id).toBeString()
        expect(await health(server.base)).toBe(200)
        expect(files(join(data, 'uploads'))).toEqual([])
        expect(files(join(data, 'imports'))).toEqual([])
      }
      // The space is back: a small import is taken.
      const small = await call(
        server.base,
        'POST',
        `/api/v1/contacts/imports${q}`,
        'email\na@b.example\n',
        'text/csv',
      )
      expect(small.status).toBe(200)
      await server.stop()

      // A spool a crash left behind (the server killed mid-upload) is gone once the server is up.
      mkdirSync(join(data, 'uploads'), { recursive: true })
      const stale = join(data, 'uploads', '01900000-0000-7000-8000-000000000000.upload')
      fill(stale, 8)
      server = await start(data)
      expect(await health(server.base)).toBe(200)
      expect(existsSync(stale)).toBe(false)
      await server.stop()
    })
  }, 120_000)

  // The SQLite file on the data volume: on PostgreSQL the database's volume is its server's (its
  // disk_full is mapped below).
  test.skipIf(DIALECT === 'postgres')(
    '18. the database cannot write on a full volume → 507 INSUFFICIENT_STORAGE; reads go on; the same create succeeds once space is freed',
    async () => {
      if (!volume.mounted) return
      await onVolume('d18', async (data) => {
        const server = await start(data)
        const clients = await call(server.base, 'GET', '/api/v1/clients')
        const q = `?client_id=${clients.body.data[0].id}`
        // Half a megabyte of HTML per template (the body limit is 1 MiB).
        const create = JSON.stringify({
          name: 'Big',
          body_html: `<p>${Array.from({ length: 100_000 }, (_, i) => i.toString(36)).join(' ')}</p>`.slice(
            0,
            500_000,
          ),
        })
        const filler = join(volume.dir, 'filler')
        fill(filler, 60)
        try {
          // The WAL may still have room from earlier writes: creates go on until it has none
          // (bounded: 40 half-megabyte templates are more than the whole volume).
          let refused = await call(server.base, 'POST', `/api/v1/templates${q}`, create)
          for (let i = 0; i < 40 && refused.status === 200; i++)
            refused = await call(server.base, 'POST', `/api/v1/templates${q}`, create)
          expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
            status: 507,
            code: 'INSUFFICIENT_STORAGE',
          })
          expect(refused.body.error.message).toBe(
            'The database could not write: the data volume is full. Free space on it and retry.',
          )
          expect((await call(server.base, 'GET', '/api/v1/templates')).status).toBe(200)
          expect(await health(server.base)).toBe(200)
        } finally {
          rmSync(filler, { force: true })
        }
        const taken = await call(server.base, 'POST', `/api/v1/templates${q}`, create)
        expect(taken.status).toBe(200)
        expect((await call(server.base, 'GET', `/api/v1/templates/${taken.body.data.id}`)).status).toBe(200)
        await server.stop()
      })
    },
    60_000,
  )
})

describe('security: a full volume in the one error mapping (in-process)', () => {
  test('18. SQLITE_FULL, also as the cause of a wrapping error, and ENOSPC answer 507 INSUFFICIENT_STORAGE, logged', async () => {
    const sqliteFull = Object.assign(new Error('database or disk is full'), {
      code: 'SQLITE_FULL',
      errno: 13,
    })
    const cases = [
      [sqliteFull, 'The database could not write: the data volume is full. Free space on it and retry.'],
      [
        new Error('Failed query: insert …', { cause: sqliteFull }),
        'The database could not write: the data volume is full. Free space on it and retry.',
      ],
      [
        Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }),
        'A file could not be written: the data volume is full. Free space on it and retry.',
      ],
    ] as const
    for (const [err, message] of cases) {
      const { response, internal } = errorResponse(err, 'req-1')
      expect({ status: response.status, internal, body: await response.json() }).toEqual({
        status: 507,
        internal: true,
        body: { error: { code: 'INSUFFICIENT_STORAGE', message, request_id: 'req-1' } },
      })
    }
    expect(errorResponse(new Error('other'), 'req-2').response.status).toBe(500)
  })

  test.skipIf(DIALECT !== 'postgres')(
    "18. PostgreSQL's disk_full, as a failed query throws it, answers 507 INSUFFICIENT_STORAGE naming the server's volume",
    async () => {
      const t = await createTestApp()
      const thrown = await runSql(
        t,
        sql.raw(
          "DO $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$",
        ),
      ).then(
        () => null,
        (err: unknown) => err,
      )
      const { response, internal } = errorResponse(thrown, 'req-3')
      expect({ status: response.status, internal, body: await response.json() }).toEqual({
        status: 507,
        internal: true,
        body: {
          error: {
            code: 'INSUFFICIENT_STORAGE',
            message:
              "The database could not write: the PostgreSQL server's volume is full. Free space on it and retry.",
            request_id: 'req-3',
          },
        },
      })
    },
  )
})
