import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { SQL } from 'bun'
import { run } from './image-tools'
import { freshDatabase, postgresServer } from './postgres'

// Each query on its own short-lived connection, so a test leaves no socket open.
async function query<T>(url: string, text: string): Promise<T[]> {
  const sql = new SQL({ url, max: 1 })
  try {
    return [...(await sql.unsafe(text))] as T[]
  } finally {
    await sql.close()
  }
}

describe('the PostgreSQL test helper', () => {
  test('two fresh databases do not see each other', async () => {
    const [a, b] = await Promise.all([freshDatabase(), freshDatabase()])
    expect(a).not.toBe(b)
    await query(a, 'CREATE TABLE only_here (id bigint PRIMARY KEY); INSERT INTO only_here VALUES (1)')
    expect(await query(a, 'SELECT id FROM only_here')).toEqual([{ id: '1' }])
    await expect(query(b, 'SELECT id FROM only_here')).rejects.toThrow(/only_here/)
    // A new copy of the template is untouched by what the files before it did.
    await expect(query(await freshDatabase(), 'SELECT id FROM only_here')).rejects.toThrow(/only_here/)
  })

  test('answers over TCP on the loopback', async () => {
    const { url } = await postgresServer()
    expect(new URL(url).hostname).toBe('127.0.0.1')
    // inet_server_addr() is null over a Unix socket.
    const [row] = await query<{ addr: string }>(url, 'SELECT host(inet_server_addr()) AS addr')
    expect(row?.addr).toBe('127.0.0.1')
  })

  test.skipIf(!!process.env.HERALD_TEST_POSTGRES_URL)(
    'the server it starts runs as a user other than root',
    async () => {
      const { url } = await postgresServer()
      // The checkpointer lives as long as the server; a backend's pid would end with the
      // connection that asked, possibly before /proc is read.
      const [row] = await query<{ pid: number }>(
        url,
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'",
      )
      const uid = readFileSync(`/proc/${row?.pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)?.[1]
      expect(uid).toBeDefined()
      expect(Number(uid)).not.toBe(0)
    },
  )

  test('the template initializer runs once, into every fresh database, and HERALD_TEST_POSTGRES_URL is used', async () => {
    // A process of its own, since the initializer is set once per process; it reuses this
    // process's server through the variable instead of starting a second one.
    const { url } = await postgresServer()
    const out = await run(['bun', `${import.meta.dir}/fixtures/postgres-template-child.ts`], {
      env: { HERALD_TEST_POSTGRES_URL: url },
    })
    const result = JSON.parse(out) as { calls: number; marks: string[][]; servers: string[] }
    expect(result.calls).toBe(1)
    expect(result.marks).toEqual([['from the template'], ['from the template']])
    expect(result.servers).toEqual([`${new URL(url).host}`, `${new URL(url).host}`])
  })

  test.skipIf(!!process.env.HERALD_TEST_POSTGRES_URL)(
    'a cluster is stopped and removed once its process is killed',
    async () => {
      const env: Record<string, string | undefined> = { ...process.env, HERALD_TEST_POSTGRES_URL: undefined }
      const child = Bun.spawn(['bun', `${import.meta.dir}/fixtures/postgres-owner-child.ts`], {
        env,
        stdout: 'pipe',
        stderr: 'inherit',
      })
      const { value } = await child.stdout.getReader().read()
      const { url, data } = JSON.parse(new TextDecoder().decode(value)) as { url: string; data: string }
      expect(existsSync(data)).toBe(true)
      expect(await query(url, 'SELECT 1 AS one')).toEqual([{ one: 1 }])
      child.kill('SIGKILL')
      await child.exited
      const deadline = Date.now() + 15_000
      while (existsSync(data) && Date.now() < deadline) await Bun.sleep(100)
      expect(existsSync(data)).toBe(false)
      await expect(query(url, 'SELECT 1')).rejects.toThrow()
    },
    30_000,
  )
})
