// A second connection writing one small row every few milliseconds, in its own thread, and
// recording how long each write took: how long another writer (an import, a webhook delivery
// log, another process) stalls while a large transaction holds the write lock. Started by a
// bench with {path}; answers {max, p99, count} when sent 'stop'.
import { Database } from 'bun:sqlite'

declare const self: Worker

self.onmessage = async (e: MessageEvent<{ path: string } | 'stop'>) => {
  if (e.data === 'stop') return
  const db = new Database(e.data.path)
  await db.run('PRAGMA busy_timeout = 60000')
  await db.run('CREATE TABLE IF NOT EXISTS bench_write_probe (at INTEGER)')
  const insert = db.prepare('INSERT INTO bench_write_probe (at) VALUES (?)')
  const took: number[] = []
  let stopped = false
  self.onmessage = () => {
    stopped = true
  }
  const tick = async () => {
    if (stopped) {
      took.sort((a, b) => a - b)
      self.postMessage({
        count: took.length,
        max: took.at(-1) ?? 0,
        p99: took[Math.floor(took.length * 0.99)] ?? 0,
      })
      db.close()
      return
    }
    const t0 = performance.now()
    await insert.run(Date.now())
    took.push(performance.now() - t0)
    setTimeout(tick, 5)
  }
  await tick()
}
