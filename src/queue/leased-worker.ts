import type { AppContext } from '../context'
import type { Awaitable } from '../lib/awaitable'
import type { WorkerName } from '../lib/wakers'

// The one loop every background worker runs (send queue, webhook deliveries, imports, and next
// journeys). The rows are the truth: a pass claims due rows with a lease and processes them;
// the loop only decides when to run the next pass — at once after work, on a kick, when the
// pass says more work comes due, or after `idleMs` as a safety net. Start-up recovery runs
// once before the first pass. Tests skip the loop and drive `runOnce()` with the injected clock.

export interface PassResult {
  /** The pass did something: run the next one at once. */
  worked: boolean
  /** When more work comes due (clock ms); the loop sleeps until then, at most `idleMs`. */
  nextAt?: number | null
}

export interface LeasedWorkerSpec {
  name: WorkerName
  /** Work a previous process held when it died (or stopped) is made due again. Runs once. */
  recover?(): Awaitable<void>
  /** Claims due rows (after expiring stale leases) and processes them. */
  pass(): Promise<PassResult> | PassResult
  /** Longest sleep between passes when nothing kicks the worker. */
  idleMs: number
  /** Waits for work a pass started and left running (webhook chains), when stopping. */
  settle?(): Promise<void>
  /**
   * Work a pass started and left running (send groups): a promise settled when some of it
   * ends, or null when none runs. `drain()` waits for it before calling the worker idle.
   */
  inflight?(): Promise<unknown> | null
  /** Runs on every kick, whoever kicks: forget what the last pass concluded about idleness. */
  onKick?(): void
}

export interface LeasedWorker {
  readonly name: WorkerName
  /** Starts the loop (recovering first). */
  start(): LeasedWorker
  /** Wakes the loop for an immediate pass. */
  kick(): void
  /** One pass, without the loop (tests, CLI): recovers first if nothing did yet. */
  runOnce(): Promise<PassResult>
  /** Passes until one does no work and nothing a pass started still runs (tests). */
  drain(maxPasses?: number): Promise<void>
  /** Ends the loop after the current pass, then lets started work settle. */
  stop(): Promise<void>
}

/**
 * After a pass throws, wait before the next: 50 ms, doubling with each failure in a row up to
 * 1 s, so a passing hiccup (a lock held by another process) costs little and a broken database
 * does not spin.
 */
const FIRST_BACKOFF_MS = 50
const MAX_BACKOFF_MS = 1_000

export function createLeasedWorker(app: AppContext, spec: LeasedWorkerSpec): LeasedWorker {
  let recovering: Promise<void> | null = null
  let stopped = false
  let kicked = false
  let wake: (() => void) | null = null
  let loop: Promise<void> | null = null

  const recover = () => {
    recovering ??= (async () => {
      await spec.recover?.()
    })()
    return recovering
  }

  // The pass a kick starts runs in a later turn of the event loop, not in the kicker's
  // microtasks: a verb that launches a campaign answers before the first audience chunk is copied.
  const kick = () => {
    spec.onKick?.()
    kicked = true
    const w = wake
    wake = null
    if (w) setImmediate(w)
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve
      setTimeout(() => {
        if (wake === resolve) wake = null
        resolve()
      }, ms)
    })

  async function run() {
    await recover()
    let failures = 0
    while (!stopped) {
      kicked = false
      let result: PassResult
      try {
        result = await spec.pass()
        failures = 0
      } catch (err) {
        app.log.error(`${spec.name} worker pass failed`, { error: String((err as Error)?.stack ?? err) })
        await sleep(Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** failures++))
        continue
      }
      if (stopped) break
      // Yield after work: with an instant provider a pass only awaits settled promises, and
      // HTTP requests and timers would otherwise wait for the whole backlog.
      if (result.worked) {
        await new Promise<void>((resolve) => setImmediate(resolve))
        continue
      }
      if (kicked) continue
      const until = result.nextAt == null ? spec.idleMs : result.nextAt - app.clock.now()
      await sleep(Math.max(1, Math.min(spec.idleMs, until)))
    }
  }

  const worker: LeasedWorker = {
    name: spec.name,
    start() {
      if (loop) return worker
      app.workers.register(spec.name, kick)
      loop = run()
      return worker
    },
    kick,
    async runOnce() {
      await recover()
      return await spec.pass()
    },
    async drain(maxPasses = 10_000) {
      for (let i = 0; i < maxPasses; i++) {
        if ((await worker.runOnce()).worked) continue
        const running = spec.inflight?.()
        if (!running) return
        await running
      }
      throw new Error(`${spec.name} worker still had work after ${maxPasses} passes`)
    },
    async stop() {
      stopped = true
      kick()
      await loop
      app.workers.unregister(spec.name, kick)
      await spec.settle?.()
    },
  }
  return worker
}
