import { afterAll, expect, test } from 'bun:test'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { serveBinary, useBinary } from '../helpers/binary'
import { until } from '../helpers/receiver'

// The compiled binary checkpoints the WAL on its checkpoint thread (src/db/checkpoint-thread.ts,
// an entry point of the executable found under /$bunfs/root/). A thread that failed to start
// would leave SQLite's automatic checkpoint, which waits for 1,000 WAL pages: one small write
// reaching the data file within seconds shows the thread at work.

const bin = useBinary('herald-checkpoint-')
const KEY = `hrld_${'Checkpoint0Thread1Key'.repeat(2)}`
const running = new Set<Subprocess>()
afterAll(() => {
  for (const p of running) p.kill('SIGKILL')
})

test('dist/herald starts with its WAL checkpoint thread: a write reaches the data file, the WAL is emptied on stop', async () => {
  const data = join(bin.work, 'data')
  const env = { ...process.env, HERALD_LOG: 'json', HERALD_BOOTSTRAP_API_KEY: KEY } as Record<string, string>
  const { proc, base } = await serveBinary(bin, data, env)
  running.add(proc)
  const output = Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
  ])
  expect((await fetch(`${base}/api/v1/health`)).ok).toBe(true)

  const marker = `checkpointed-client-${Date.now()}`
  const res = await fetch(`${base}/api/v1/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: marker }),
  })
  expect(res.ok).toBe(true)
  const file = join(data, 'herald.db')
  // Only a checkpoint writes rows into the data file under WAL; the write is a few pages.
  await until(() => readFileSync(file).includes(marker), 10_000, 'the client row in the data file')

  proc.kill('SIGTERM')
  expect(await proc.exited).toBe(0)
  const [stdout, stderr] = await output
  expect(stdout + stderr).not.toContain('WAL checkpoint thread unavailable')
  expect(statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0)
}, 30_000)
