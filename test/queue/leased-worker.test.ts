import { describe, expect, test } from 'bun:test'
import { createLeasedWorker, type PassResult } from '../../src/queue/leased-worker'
import { createTestApp } from '../helpers/app'

// The one loop of every background worker: recovery once, a pass on a kick (in a later turn,
// never inside the kicker's own call), a failed pass logged and retried after a short backoff,
// drain() for tests, stop() letting started work settle.

const t = await createTestApp()

/** A spec whose passes are scripted: each call takes the next answer (or throws it). */
function scripted(answers: (PassResult | Error)[]) {
  const calls = { recover: 0, pass: 0, settle: 0 }
  const worker = createLeasedWorker(t.ctx, {
    name: 'flows',
    recover: () => void calls.recover++,
    pass() {
      const a = answers[calls.pass++] ?? { worked: false }
      if (a instanceof Error) throw a
      return a
    },
    idleMs: 60_000,
    settle: async () => void calls.settle++,
  })
  return { worker, calls }
}

describe('leased worker', () => {
  test('runOnce recovers once, before the first pass', async () => {
    const { worker, calls } = scripted([{ worked: true }, { worked: false }])
    await worker.runOnce()
    await worker.runOnce()
    expect(calls).toEqual({ recover: 1, pass: 2, settle: 0 })
  })

  test('drain runs passes until one does no work, and refuses to loop for ever', async () => {
    const { worker, calls } = scripted([{ worked: true }, { worked: true }, { worked: false }])
    await worker.drain()
    expect(calls.pass).toBe(3)
    const busy = scripted(Array.from({ length: 10 }, () => ({ worked: true })))
    await expect(busy.worker.drain(5)).rejects.toThrow('still had work after 5 passes')
  })

  test('a kick runs a pass in a later turn, not inside the kicker; the name wakes it through ctx.workers', async () => {
    const { worker, calls } = scripted([])
    worker.start()
    await Bun.sleep(0)
    const before = calls.pass
    t.ctx.workers.wake('flows')
    expect(calls.pass).toBe(before) // not run synchronously inside wake()
    await new Promise<void>((resolve) => setImmediate(resolve))
    await Bun.sleep(0)
    expect(calls.pass).toBe(before + 1)
    await worker.stop()
    expect(calls.settle).toBe(1)
    // Stopped: a wake by name reaches nothing.
    t.ctx.workers.wake('flows')
    await new Promise<void>((resolve) => setImmediate(resolve))
    await Bun.sleep(0)
    expect(calls.pass).toBe(before + 1)
  })

  test('a pass that throws is logged and the loop goes on after a short backoff', async () => {
    const errors: string[] = []
    const log = t.ctx.log
    const ctx = { ...t.ctx, log: { ...log, error: (msg: string) => void errors.push(msg) } }
    let passes = 0
    let resolveSecond: () => void = () => {}
    const second = new Promise<void>((r) => {
      resolveSecond = r
    })
    const worker = createLeasedWorker(ctx, {
      name: 'flows',
      pass() {
        passes++
        if (passes === 1) throw new Error('database is locked')
        resolveSecond()
        return { worked: false }
      },
      idleMs: 60_000,
    }).start()
    const started = performance.now()
    await second
    const waited = performance.now() - started
    await worker.stop()
    expect(errors).toEqual(['flows worker pass failed'])
    expect(passes).toBe(2)
    // The first backoff is 50 ms, not the idle minute.
    expect(waited).toBeLessThan(5_000)
  })
})
