import { afterAll, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { freePort, useBinary } from '../helpers/binary'
import { serveApp } from '../helpers/mcp'

// `herald api` from the compiled executable against a server on a loopback port: stdin bodies,
// an answer larger than a pipe's buffer arriving whole before the process exits, the exit codes.

const bin = useBinary('herald-api-bin-')
const t = createTestApp()
const server = serveApp(t.app)
afterAll(() => server.stop())
const clientId = t.client('Binary CLI')

/** Spawned, not spawnSync: the server answering it runs in this process's event loop. */
async function herald(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const env = { ...process.env, HERALD_URL: server.base, HERALD_API_KEY: t.adminKey, ...options.env }
  const p = Bun.spawn([bin.path(), ...args], {
    cwd: bin.work,
    env,
    stdin: options.stdin === undefined ? 'ignore' : Buffer.from(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ])
  return { code, stdout, stderr }
}

test('the binary creates from stdin, pages every item through a pipe, and exits 1 / 3 on errors', async () => {
  const made = await herald(['api', 'create_contact', '--client', clientId, '--body', '-'], {
    stdin: JSON.stringify({ email: 'stdin@example.com', company: 'x'.repeat(200) }),
  })
  expect(made.code).toBe(0)
  // Not a terminal: compact JSON, one line.
  expect(made.stdout.trim().split('\n')).toHaveLength(1)
  expect(JSON.parse(made.stdout).data.email).toBe('stdin@example.com')

  // ~120 kB of JSON lines: more than a pipe holds, all of it read before the exit.
  for (let i = 0; i < 399; i++) {
    const r = await t.call('POST', `/api/v1/contacts?client_id=${clientId}`, {
      body: { email: `p${i}@example.com`, company: 'y'.repeat(200) },
    })
    expect(r.status).toBe(200)
  }
  const all = await herald([
    'api',
    'list_contacts',
    '--client',
    clientId,
    '--limit',
    '150',
    '--all',
    '--jsonl',
  ])
  expect(all.code).toBe(0)
  const lines = all.stdout.trim().split('\n')
  expect(lines).toHaveLength(400)
  expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(400)

  const missing = await herald(['api', 'get_contact', '01900000-0000-7000-8000-000000000000'])
  expect(missing.code).toBe(1)
  expect(missing.stderr).toMatch(/^herald: NOT_FOUND: /)

  const closed = `http://127.0.0.1:${freePort()}`
  const down = await herald(['api', 'list_contacts'], { env: { HERALD_URL: closed } })
  expect(down.code).toBe(3)
  expect(down.stderr).toContain(`cannot reach Herald at ${closed}`)

  const usage = await herald(['api', 'list_contacs'])
  expect(usage.code).toBe(2)
  expect(usage.stderr).toContain('did you mean list_contacts')
}, 60_000)
