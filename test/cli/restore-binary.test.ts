import { expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { serveBinary, useBinary } from '../helpers/binary'

// `herald restore` against the compiled binary: refused (exit 1, naming the running server) while
// `herald serve` has the data directory, also right after a kill -9 leaves no stale lock behind.

const bin = useBinary('herald-restore-')

function herald(...args: string[]) {
  const r = Bun.spawnSync([bin.path(), ...args], { cwd: bin.work, env: { PATH: process.env.PATH ?? '' } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

test('restore is refused while a server runs, and works once it has stopped (even killed)', async () => {
  const data = join(bin.work, 'data')
  const backup = join(bin.work, 'copy.db')
  const { proc } = await serveBinary(bin, data, { PATH: process.env.PATH ?? '' })
  try {
    // The backup itself is online: it works while the server runs.
    expect(herald('backup', backup, '--data', data).code).toBe(0)
    const refused = herald('restore', backup, '--data', data)
    expect(refused.code).toBe(1)
    expect(refused.err).toContain(`a server is running on ${data}`)
    expect(existsSync(join(data, 'herald.db'))).toBe(true)
  } finally {
    proc.kill('SIGKILL')
    await proc.exited
  }
  const restored = herald('restore', backup, '--data', data)
  expect(restored.err).toBe('')
  expect(restored.code).toBe(0)
  expect(restored.out).toContain('the replaced data file is kept as')

  // The restored file serves.
  const again = await serveBinary(bin, data, { PATH: process.env.PATH ?? '' })
  expect((await fetch(`${again.base}/api/v1/health`)).status).toBe(200)
  again.proc.kill('SIGTERM')
  await again.proc.exited
}, 180_000)
