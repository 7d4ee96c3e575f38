import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { DIALECT } from '../../src/db/dialect'
import { BACKUP_ON_POSTGRES } from '../../src/services/instance/backup'
import { freePort, runBinary, serveBinary, storeEnv, useBinary } from '../helpers/binary'

// The compiled executable, end to end (test/helpers/binary.ts builds it or takes HERALD_BINARY).
const bin = useBinary('herald-bin-')
const work = bin.work
const env = { ...process.env, HERALD_LOG: 'json' } as Record<string, string>
delete env.HERALD_BOOTSTRAP_API_KEY

const run = (args: string[], extraEnv: Record<string, string> = {}) =>
  runBinary(bin, args, { ...env, ...extraEnv })

const start = (dataDir: string) => serveBinary(bin, dataDir, env)

async function stop(proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>) {
  proc.kill('SIGTERM')
  const code = await proc.exited
  return { code, stdout: await new Response(proc.stdout).text() }
}

describe('the compiled binary', () => {
  test('version, help, and usage errors (exit 2)', async () => {
    expect((await run(['version'])).stdout.trim()).toBe('1.0.0')
    expect((await run(['help'])).stdout).toContain('herald serve')
    const unknown = await run(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('unknown command: frobnicate')
    expect(unknown.stderr).toContain('Usage:')
    expect((await run(['serve', '--colour', 'red'])).code).toBe(2)
    expect((await run(['migrate', '--port', '1'])).code).toBe(2)
    const jobsData = join(work, 'jobs')
    expect((await run(['jobs', 'list', '--data', jobsData])).stdout).toContain('segments.refresh')
    expect((await run(['jobs', 'run', 'idempotency.purge', '--data', jobsData])).stdout).toContain(
      'job idempotency.purge ran',
    )
    expect((await run(['jobs', 'run', 'nope', '--data', jobsData])).code).toBe(2)
    // Nine starts of the binary: a loaded 2-core CI box needs more than the default 5 s.
  }, 30_000)

  test('a bad setting stops start-up with one line naming it', async () => {
    const r = await run(['serve', '--data', join(work, 'bad')], { HERALD_LOG: 'xml' })
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe('herald: HERALD_LOG must be one of json, pretty, got "xml"')
  })

  test('first run bootstraps and prints the key once; restart keeps data; SIGTERM exits cleanly', async () => {
    const data = join(work, 'data')
    const first = await start(data)
    const health = await (await fetch(`${first.base}/api/v1/health`)).json()
    expect(health).toMatchObject({ status: 'ok', version: '1.0.0' })

    // A key made offline on the same file works on the running server.
    const made = await run([
      'keys',
      'create',
      '--name',
      'ops',
      '--scopes',
      'contacts:read',
      '--json',
      '--data',
      data,
    ])
    expect(made.code).toBe(0)
    const { key } = JSON.parse(made.stdout)
    const clients = await fetch(`${first.base}/api/v1/clients`, { headers: { 'x-api-key': key } })
    expect(clients.status).toBe(200)
    expect(((await clients.json()) as { data: { name: string }[] }).data[0]!.name).toBe('Default workspace')

    // Online backup while serving; on PostgreSQL there is no file to copy: the answer names pg_dump.
    const backupFile = join(work, 'backup.db')
    if (DIALECT === 'postgres') {
      const refused = await run(['backup', backupFile, '--data', data])
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim()).toBe(`herald: ${BACKUP_ON_POSTGRES}`)
      expect(existsSync(backupFile)).toBe(false)
    } else {
      expect((await run(['backup', backupFile, '--data', data])).code).toBe(0)
      const copy = new Database(backupFile, { readonly: true })
      expect(await copy.query('SELECT count(*) AS n FROM clients').get()).toEqual({ n: 1 })
      copy.close()
      const twice = await run(['backup', backupFile, '--data', data])
      expect(twice.code).toBe(1)
      expect(twice.stderr).toContain('already exists')
    }

    // A key revoked offline stops working on the running server (within the 1 s look-up cache).
    const doomed = JSON.parse(
      (await run(['keys', 'create', '--name', 'tmp', '--scopes', 'contacts:read', '--json', '--data', data]))
        .stdout,
    )
    expect(
      (await fetch(`${first.base}/api/v1/clients`, { headers: { 'x-api-key': doomed.key } })).status,
    ).toBe(200)
    expect((await run(['keys', 'revoke', doomed.id, '--data', data])).code).toBe(0)
    await Bun.sleep(1100)
    expect(
      (await fetch(`${first.base}/api/v1/clients`, { headers: { 'x-api-key': doomed.key } })).status,
    ).toBe(401)
    expect((await run(['keys', 'list', '--data', data])).stdout).toContain(`${doomed.id}\t`)

    const stopped = await stop(first.proc)
    expect(stopped.code).toBe(0)
    const bootKey = /Admin API key \(shown once, store it now\): (hrld_\S+)/.exec(stopped.stdout)?.[1]
    expect(bootKey).toBeDefined()
    expect(stopped.stdout).toContain('Portal password (shown once)')
    const logLines = stopped.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
    const access = logLines.find((l) => l.msg === 'request' && l.path === '/api/v1/clients')
    expect(access).toMatchObject({ method: 'GET', status: 200 })
    expect(typeof access.duration_ms).toBe('number')
    expect(access.request_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(access.key_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(stopped.stdout).not.toContain(key) // the key is never logged
    expect(logLines.at(-1)).toMatchObject({ msg: 'stopped', forced: false })
    // The data file is the store on SQLite; on PostgreSQL the directory holds none.
    expect(existsSync(join(data, 'herald.db'))).toBe(DIALECT === 'sqlite')

    const second = await start(data)
    const ok = await fetch(`${second.base}/api/v1/clients`, {
      headers: { authorization: `Bearer ${bootKey}` },
    })
    expect(ok.status).toBe(200)
    const again = await stop(second.proc)
    expect(again.code).toBe(0)
    expect(again.stdout).not.toContain('shown once')
    expect(again.stdout).not.toContain(bootKey!)
  }, 60_000)

  test('SIGTERM lets an in-flight request finish, then refuses new connections', async () => {
    const data = join(work, 'data-drain')
    const server = await start(data)
    const key = JSON.parse(
      (await run(['keys', 'create', '--name', 'd', '--scopes', 'admin:*', '--json', '--data', data])).stdout,
    ).key
    const encoder = new TextEncoder()
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    // A request whose body arrives slowly: it is in flight when SIGTERM lands.
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode('{"name":'))
        await gate
        controller.enqueue(encoder.encode('"Late"}'))
        controller.close()
      },
    })
    const inFlight = fetch(`${server.base}/api/v1/clients`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit)
    await Bun.sleep(100)
    server.proc.kill('SIGTERM')
    await Bun.sleep(100)
    release()
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { name: string } }).data.name).toBe('Late')
    expect(await server.proc.exited).toBe(0)
    await expect(fetch(`${server.base}/api/v1/health`)).rejects.toThrow()
  }, 30_000)

  test('a CSV import runs on its parse worker inside the binary: phones to E.164, bad ones reported', async () => {
    const data = join(work, 'data-import')
    const server = await start(data)
    const key = JSON.parse(
      (await run(['keys', 'create', '--name', 'i', '--scopes', 'admin:*', '--json', '--data', data])).stdout,
    ).key
    const headers = { authorization: `Bearer ${key}` }
    const call = async (method: string, path: string, body?: string, type = 'application/json') =>
      (await fetch(`${server.base}${path}`, {
        method,
        body,
        headers: body === undefined ? headers : { ...headers, 'content-type': type },
      }).then((r) => r.json())) as { data: Record<string, unknown> & { id: string } }
    const client = (await call('POST', '/api/v1/clients', JSON.stringify({ name: 'Import' }))).data
    const csv =
      'email,first_name,company,phone,plan\n' +
      'ben@northwind.example,Ben,"Northwind, Inc.",+1 (415) 555-0132,team\n' +
      'dev@brightpath.example,Dev,BrightPath,+44 20 7946 0958,free\n' +
      'nope@acme.example,No,Acme,+1 (055) 555-0132,free\n'
    const queued = (await call('POST', `/api/v1/contacts/imports?client_id=${client.id}`, csv, 'text/csv'))
      .data
    let job = queued
    for (let i = 0; i < 200 && !job.finished_at; i++) {
      await Bun.sleep(50)
      job = (await call('GET', `/api/v1/contacts/imports/${queued.id}`)).data
    }
    expect(job).toMatchObject({ status: 'completed', inserted: 2, skipped: 1 })
    expect(job.errors).toEqual([
      { row: 4, message: 'phone "+1 (055) 555-0132" is not a phone number (use +<country code>…)' },
    ])
    const found = await call(
      'POST',
      '/api/v1/contacts/search',
      JSON.stringify({ query: 'ben', client_id: client.id }),
    )
    expect((found.data as unknown as { phone: string; company: string }[])[0]).toMatchObject({
      phone: '+14155550132',
      company: 'Northwind, Inc.',
    })
    expect((await stop(server.proc)).code).toBe(0)
  }, 30_000)

  test('HERALD_BOOTSTRAP_API_KEY is honoured on first run', async () => {
    const data = join(work, 'data-boot')
    const chosen = `hrld_${'a1B2'.repeat(10)}`
    const port = freePort()
    const proc = Bun.spawn(
      [bin.path(), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', data],
      {
        cwd: work,
        env: await storeEnv(data, { ...env, HERALD_BOOTSTRAP_API_KEY: chosen }),
        stdout: 'pipe',
        stderr: 'pipe',
      },
    )
    let status = 0
    for (let i = 0; i < 200 && status !== 200; i++) {
      try {
        status = (
          await fetch(`http://127.0.0.1:${port}/api/v1/api-keys`, {
            headers: { authorization: `Bearer ${chosen}` },
          })
        ).status
      } catch {
        await Bun.sleep(25)
      }
    }
    expect(status).toBe(200)
    const out = await stop(proc)
    expect(out.stdout).not.toContain(chosen)
  }, 30_000)
})
