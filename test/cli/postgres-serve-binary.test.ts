import { afterAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveBinary, useBinary } from '../helpers/binary'
import { blankDatabase } from '../helpers/postgres'

// The built binary on PostgreSQL, as an operator starts it: `herald serve` with
// HERALD_DATABASE_URL creates the schema in an empty database,
// bootstraps, and serves the API and the probes from it; the data directory holds no SQLite file.

setDefaultTimeout(120_000)
const bin = useBinary('herald-pg-serve-')
const dir = mkdtempSync(join(tmpdir(), 'herald-pg-serve-data-'))
const KEY = `hrld_${'PgServeBinKey1'.repeat(3)}`
let server: Awaited<ReturnType<typeof serveBinary>> | null = null
afterAll(() => {
  server?.proc.kill()
  rmSync(dir, { recursive: true, force: true })
})

let url = ''

test('herald serve on an empty PostgreSQL database: migrated, bootstrapped, the API and probes answer', async () => {
  url = await blankDatabase()
  server = await serveBinary(bin, join(dir, 'data'), {
    PATH: process.env.PATH ?? '',
    HERALD_DATABASE_URL: url,
    HERALD_BOOTSTRAP_API_KEY: KEY,
  })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server!.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } }
  }
  const clients = (await call('GET', '/api/v1/clients')).body.data as unknown as {
    id: string
    name: string
  }[]
  expect(clients.map((c) => c.name)).toEqual(['Default workspace'])
  const q = `?client_id=${clients[0]!.id}`
  const created = await call('POST', `/api/v1/contacts${q}`, { email: 'ann@example.com', first_name: 'Ann' })
  expect(created.status).toBe(200)
  const found = await call('POST', `/api/v1/contacts/search${q}`, { query: 'ann' })
  expect((found.body.data as unknown as { email: string }[]).map((c) => c.email)).toEqual(['ann@example.com'])
  const ready = await fetch(`${server.base}/readyz`)
  expect(ready.status).toBe(200)
  expect(await Bun.file(join(dir, 'data', 'herald.db')).exists()).toBe(false)
})

test('a second herald serve on the same database serves beside the first', async () => {
  expect(server).not.toBeNull()
  // Its own data directory, and the first one's key, as every process on one database needs.
  const key = (await Bun.file(join(dir, 'data', 'secret.key')).text()).trim()
  const second = await serveBinary(bin, join(dir, 'second'), {
    PATH: process.env.PATH ?? '',
    HERALD_DATABASE_URL: url,
    HERALD_SECRET_KEY: key,
  })
  try {
    expect((await fetch(`${second.base}/readyz`)).status).toBe(200)
  } finally {
    second.proc.kill()
    await second.proc.exited
  }
  const log = await new Response(second.proc.stdout as ReadableStream).text()
  expect(log).not.toContain('another Herald process')
  // Stopping the second stopped nothing of the first's.
  expect(server!.proc.exitCode).toBeNull()
})

test('a process with another secret key than the database has is refused at start, saying so', async () => {
  const proc = Bun.spawn([bin.path(), 'serve', '--port', '0', '--data', join(dir, 'third')], {
    cwd: bin.work,
    env: { PATH: process.env.PATH ?? '', HERALD_DATABASE_URL: url },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect(await proc.exited).not.toBe(0)
  const out = (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text())
  expect(out).toContain('the secret key differs from the one this PostgreSQL database was first used with')
})
