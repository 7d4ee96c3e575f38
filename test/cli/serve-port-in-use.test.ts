import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, healthy, storeEnv } from '../helpers/binary'

// A second `herald serve` on a port already in use must fail, not share it: Elysia listens
// with SO_REUSEPORT by default, so a second server (another data dir, or an overlapping
// restart) bound the same port and the kernel split the connections between the two (half the
// requests answered 401 from the other instance's database).

const root = join(import.meta.dir, '../..')
const work = mkdtempSync(join(tmpdir(), 'herald-port-'))
const procs: Bun.Subprocess[] = []
afterAll(() => {
  for (const p of procs) p.kill()
  rmSync(work, { recursive: true, force: true })
})

const start = async (port: number, data: string) => {
  const p = Bun.spawn(
    [
      'bun',
      join(root, 'src/main.ts'),
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data',
      data,
    ],
    {
      cwd: work,
      env: await storeEnv(data, { ...process.env, HERALD_LOG: 'json' }),
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  procs.push(p)
  return p
}

test('serve on a port in use exits non-zero and the first server keeps the port', async () => {
  const port = freePort()
  const first = await start(port, join(work, 'a'))
  const base = `http://127.0.0.1:${port}`
  await healthy(base)
  expect((await fetch(`${base}/api/v1/health`)).ok).toBe(true)
  const second = await start(port, join(work, 'b'))
  const code = await second.exited
  expect(code).not.toBe(0)
  const said = (await new Response(second.stderr).text()) + (await new Response(second.stdout).text())
  expect(said).toContain(String(port))
  expect(first.exitCode).toBeNull()
}, 60_000)
