import { availableParallelism } from 'node:os'
import { tookTooLong } from './render'
import {
  FIELDS,
  type FromRenderThread,
  KNOWN_VERSIONS,
  PHASE_COMPILING,
  PHASE_IDLE,
  type RenderAnswer,
  type RenderJob,
  type RenderRequest,
  type ToRenderThread,
} from './render-protocol'

// Templates render on warm worker threads, never on the main thread: a render that runs past
// its time budget (a loop Liquid cannot interrupt, a filter over a huge string) holds only its
// thread, which the pool ends and replaces. Each thread runs its jobs one after another and
// keeps the compiled templates it has seen.

/**
 * The thread's module. From source it sits next to this one; in the executable it is an entry
 * point of its own (scripts/build.ts) under the bundle's root (src/).
 */
const RENDER_THREAD = import.meta.url.includes('/$bunfs/')
  ? new URL('./services/templates/render-thread.ts', import.meta.url)
  : new URL('./render-thread.ts', import.meta.url)

/** Parsing and CSS inlining, before the render's own budget starts. */
const COMPILE_ALLOWANCE_MS = 2_000
/**
 * Liquid's own check stops most renders at the budget and the thread lives on; one that has not
 * answered this long after it (a filter Liquid cannot interrupt) is ended. The margin also keeps
 * a thread that was merely not scheduled on a loaded machine from being ended for it.
 */
const graceOf = (budgetMs: number) => Math.max(100, budgetMs / 2)
/** How long a version that ran out of time is refused without rendering. */
const SLOW_MEMORY_MS = 10 * 60_000
const SLOW_MEMORY_MAX = 500
/** A thread that dies before it is set up is started again after 0.1 s, doubling, up to this. */
const MAX_RESPAWN_DELAY_MS = 30_000

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never
export type RenderResult = DistributiveOmit<RenderAnswer, 'job'>

export interface RenderPool {
  render(request: RenderRequest): Promise<RenderResult>
  /** Threads ended for running past a budget (tests check they were replaced). */
  ended(): number
  close(): void
}

export interface RenderPoolOptions {
  size: number
  /**
   * Jobs a thread is given before it answers the first: 1 keeps a job from waiting behind a
   * slow one (previews); more hides the round trip when throughput counts (sends).
   */
  depth: number
  /**
   * Answer jobs of a template version that ran out of time at once, for a while (sends: a
   * campaign's messages then fail without one budget each; a preview always tries again).
   */
  rememberSlow: boolean
}

interface Job {
  id: number
  request: RenderRequest
  resolve(r: RenderResult): void
}

interface Slot {
  worker: Worker
  /** [phase, compiling since, rendering since, job]: see ToRenderThread's init. */
  state: Float64Array
  ready: boolean
  /** Jobs given to the thread, in the order it runs them. */
  jobs: Job[]
  timer: ReturnType<typeof setTimeout> | null
  /** The template versions whose content the thread was sent and still holds. */
  versions: Set<string>
}

export function createRenderPool({ size, depth, rememberSlow }: RenderPoolOptions): RenderPool {
  const slots = new Set<Slot>()
  const queue: Job[] = []
  const slow = new Map<string, { result: RenderResult; until: number }>()
  let jobs = 0
  let ended = 0
  let closed = false
  /** Threads in a row that died before they were set up (a thread that cannot start must not spin). */
  let startFailures = 0

  const versionOf = (r: RenderRequest) =>
    r.content.id !== undefined && r.content.updatedAt !== undefined
      ? `${r.content.id}:${r.content.updatedAt}`
      : null

  function spawn() {
    // smol: a render thread holds compiled templates and one render's strings, so a small heap
    // that collects often keeps each thread's memory low without slowing renders measurably.
    const worker = new Worker(RENDER_THREAD, { smol: true })
    ;(worker as Worker & { unref(): void }).unref() // idle threads never keep the process alive
    const shared = new SharedArrayBuffer(4 * Float64Array.BYTES_PER_ELEMENT)
    const slot: Slot = {
      worker,
      state: new Float64Array(shared),
      ready: false,
      jobs: [],
      timer: null,
      versions: new Set(),
    }
    slot.state[0] = PHASE_IDLE
    worker.onmessage = (e: MessageEvent<string | FromRenderThread>) => {
      const m = typeof e.data === 'string' ? (JSON.parse(e.data) as FromRenderThread) : e.data
      if (m.type === 'ready') {
        slot.ready = true
        startFailures = 0
      } else {
        for (const { job: id, ...result } of m.answers) {
          const at = slot.jobs.findIndex((j) => j.id === id)
          if (at >= 0) settle(slot.jobs.splice(at, 1)[0]!, result)
        }
        if (slot.jobs.length === 0 && slot.timer) {
          clearTimeout(slot.timer)
          slot.timer = null
        }
      }
      dispatch()
    }
    worker.addEventListener('close', () => {
      if (!slots.has(slot)) return
      if (slot.ready) return replace(slot, 'the template could not be rendered', false)
      // It could not start: what waits fails now (no thread may come), another is tried later.
      slots.delete(slot)
      const failed: RenderResult = {
        ok: false,
        field: null,
        message: 'the render threads could not start',
        limit: false,
      }
      for (const job of queue.splice(0)) job.resolve(failed)
      const delay = Math.min(MAX_RESPAWN_DELAY_MS, 100 * 2 ** startFailures++)
      setTimeout(() => closed || spawn(), delay).unref()
    })
    worker.postMessage({ type: 'init', state: shared } satisfies ToRenderThread)
    slots.add(slot)
  }

  function settle(job: Job, result: RenderResult) {
    const version = rememberSlow ? versionOf(job.request) : null
    if (version && !result.ok && result.limit && result.message === tookTooLong(job.request.budgetMs)) {
      if (slow.size >= SLOW_MEMORY_MAX) slow.delete(slow.keys().next().value as string)
      slow.set(version, { result, until: Date.now() + SLOW_MEMORY_MS })
    }
    job.resolve(result)
  }

  /**
   * Ends the thread: the job it was running fails (naming the member it was rendering), the
   * jobs given to it after that one go back to the front of the queue, a new thread starts.
   */
  function replace(slot: Slot, message: string, limit: boolean) {
    slots.delete(slot)
    slot.worker.terminate()
    if (slot.timer) clearTimeout(slot.timer)
    const running = slot.state[3]
    const field = FIELDS[slot.state[0]!] ?? null
    const culprit = slot.jobs.find((j) => j.id === running) ?? slot.jobs[0]
    if (culprit) settle(culprit, { ok: false, field, message, limit })
    queue.unshift(...slot.jobs.filter((j) => j !== culprit))
    if (!closed) spawn()
    dispatch()
  }

  /**
   * Ends the thread when the job it runs renders past the budget (compiling has an allowance
   * of its own). A thread that is idle is not stuck: its answers are on their way.
   */
  function watch(slot: Slot) {
    slot.timer = null
    const head = slot.jobs[0]
    if (!head || !slots.has(slot)) return
    const budget = head.request.budgetMs
    const [phase = PHASE_IDLE, compilingSince = 0, renderingSince = 0] = slot.state
    const now = Date.now()
    const left =
      phase === PHASE_IDLE
        ? 5
        : phase === PHASE_COMPILING
          ? compilingSince + COMPILE_ALLOWANCE_MS - now
          : renderingSince + budget + graceOf(budget) - now
    if (left > 0) {
      slot.timer = setTimeout(() => watch(slot), left)
      return
    }
    ended++
    replace(slot, tookTooLong(budget), true)
  }

  /** The job as the thread is sent it: a version's content only the first time (see RenderJob). */
  function onWire(slot: Slot, job: Job): RenderJob {
    const { content, ...rest } = job.request
    const version = versionOf(job.request)
    if (version === null) return { job: job.id, content, ...rest }
    if (slot.versions.has(version)) return { job: job.id, version, ...rest }
    if (slot.versions.size >= KNOWN_VERSIONS) slot.versions.clear()
    slot.versions.add(version)
    return { job: job.id, version, content, ...rest }
  }

  /** Hands queued jobs to the least busy threads, each thread's share in one message. */
  function dispatch() {
    const batches = new Map<Slot, RenderJob[]>()
    for (;;) {
      let best: Slot | null = null
      for (const slot of slots)
        if (slot.ready && slot.jobs.length < depth && (!best || slot.jobs.length < best.jobs.length))
          best = slot
      if (!best) break
      const job = takeJob()
      if (!job) break
      best.jobs.push(job)
      const batch = batches.get(best)
      const wire = onWire(best, job)
      if (batch) batch.push(wire)
      else batches.set(best, [wire])
      const slot = best
      slot.timer ??= setTimeout(() => watch(slot), job.request.budgetMs + graceOf(job.request.budgetMs))
    }
    for (const [slot, jobs] of batches)
      slot.worker.postMessage(JSON.stringify({ type: 'render', jobs } satisfies ToRenderThread))
  }

  // Renders asked for in one turn are dispatched together at its end.
  let dispatching = false
  function dispatchSoon() {
    if (dispatching) return
    dispatching = true
    queueMicrotask(() => {
      dispatching = false
      dispatch()
    })
  }

  /** The next job to run; jobs of a version that recently ran out of time are answered at once. */
  function takeJob(): Job | undefined {
    for (;;) {
      const job = queue.shift()
      if (!job) return undefined
      const known = remembered(job.request)
      if (!known) return job
      job.resolve(known)
    }
  }

  function remembered(request: RenderRequest): RenderResult | null {
    const version = versionOf(request)
    const hit = version ? slow.get(version) : undefined
    if (!hit) return null
    if (hit.until > Date.now()) return hit.result
    slow.delete(version!)
    return null
  }

  // Threads start with the first render, so a process that renders nothing holds none.
  let started = false
  return {
    render(request) {
      if (closed) return Promise.reject(new Error('the render pool is closed'))
      if (!started) {
        started = true
        for (let i = 0; i < size; i++) spawn()
      }
      const known = remembered(request)
      if (known) return Promise.resolve(known)
      return new Promise<RenderResult>((resolve) => {
        queue.push({ id: ++jobs, request, resolve })
        dispatchSoon()
      })
    },
    ended: () => ended,
    close() {
      closed = true
      for (const slot of [...slots]) {
        slots.delete(slot)
        if (slot.timer) clearTimeout(slot.timer)
        slot.worker.terminate()
      }
    },
  }
}

const defaultSize = () => Math.max(1, Math.min(8, Math.floor(availableParallelism() / 2)))

let previews: RenderPool | null = null
let sends: RenderPool | null = null

/** The threads that render previews (API, MCP, the portal's live preview). */
export const previewRenderer = (): RenderPool => {
  previews ??= createRenderPool({ size: 2, depth: 1, rememberSlow: false })
  return previews
}

/** The threads that render every message sent (the send threads only compose and send them). */
export const sendRenderer = (): RenderPool => {
  sends ??= createRenderPool({ size: defaultSize(), depth: 32, rememberSlow: true })
  return sends
}
