import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp } from '../helpers/app'
import { freePort, serveBinary, useBinary } from '../helpers/binary'
import { serveApp } from '../helpers/mcp'

// `herald api` from the compiled executable against a server on a loopback port: stdin bodies,
// an answer larger than a pipe's buffer arriving whole before the process exits, the exit codes.

const bin = useBinary('herald-api-bin-')
const t = await createTestApp()
const server = serveApp(t.app)
afterAll(() => server.stop())
const clientId = await t.client('Binary CLI')

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

test('docs/operations.md "Command line": its herald api block runs by copy-paste against herald serve', async () => {
  expect(Bun.which('jq'), 'the block uses jq (apt-get install jq)').not.toBeNull()
  const readme = readFileSync(join(import.meta.dir, '../../docs/operations.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Command line'))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]
  expect(block).toBeString()
  // Only what the reader fills in is replaced: the key printed on first run, and the address.
  expect(block!).toMatch(/^export HERALD_URL=http:\/\/127\.0\.0\.1:8080 HERALD_API_KEY=hrld_…/m)
  expect(block!).not.toMatch(/(cmp|con|cli)_…/) // no id left for the reader to invent

  const key = 'hrld_CommandLineBlock0123456789ab'
  const env = { ...process.env, HERALD_BOOTSTRAP_API_KEY: key } as Record<string, string>
  for (const name of ['HERALD_URL', 'HERALD_API_KEY', 'HERALD_PUBLIC_URL']) delete env[name]
  const served = await serveBinary(bin, join(bin.work, 'cli-block-data'), env, 'ignore')
  try {
    // `herald` on PATH, as an installed binary would be.
    const path = join(bin.work, 'cli-block-bin')
    mkdirSync(path)
    symlinkSync(bin.path(), join(path, 'herald'))
    const script = block!
      .replace('http://127.0.0.1:8080', served.base)
      .replace('HERALD_API_KEY=hrld_…', `HERALD_API_KEY=${key}`)
    writeFileSync(join(bin.work, 'cli-block.sh'), script)
    const run = Bun.spawn(['bash', '-euo', 'pipefail', 'cli-block.sh'], {
      cwd: bin.work,
      env: { ...env, PATH: `${path}:${process.env.PATH}` },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [code, out, err] = await Promise.all([
      run.exited,
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
    ])
    expect(code, `the block failed:\n${out}\n${err}`).toBe(0)
    expect(err).toBe('')
    expect(out).toContain('"email":"ana@example.com"')
    expect(out).toContain('"name":"Default workspace"')
  } finally {
    served.proc.kill('SIGTERM')
    await served.proc.exited
  }
}, 120_000)
