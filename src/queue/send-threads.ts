import type { KeyObject } from 'node:crypto'
import type { Channel } from '../channels/types'
import type { Config } from '../config'
import type { ContactRow, MessageRow } from '../db/schema'
import type { Logger } from '../lib/log'
import type { RenderedMessage } from '../services/templates/render'
import type { SendPlan } from './plan'
import type { SmtpTarget } from './profile-providers'
import type { FromThread, JobAnswer, PlanSpec, SendJob, ToThread } from './send-thread-protocol'

// The send threads: for channels whose provider costs CPU per message (SMTP: MIME,
// DKIM, the conversation), composition and the provider call run on worker threads
// (send-thread.ts), and the main thread only claims, checks and records. Each thread owns its
// provider (its own SMTP pool). A send goes to the thread with the fewest owed answers.
//
// A thread that dies (or owes an answer far past the send deadline, and is ended) takes its
// owed answers with it: those sends come back `lost`, their messages keep their leases and are
// sent again, with the same Message-ID, when the leases expire (never sooner: the thread may
// have handed them to the server). A new thread takes its place. A thread that dies before it
// was set up cannot have sent anything: its sends are refused (retryable), so a thread that
// cannot start shows as an error on the messages instead of leases that never end.

/**
 * The thread's module. From source it sits next to this one; in the executable it is an entry
 * point of its own (scripts/build.ts) under the bundle's root (src/), while this module's
 * import.meta.url is the executable's: /$bunfs/root/<name>.
 */
const SEND_THREAD = import.meta.url.includes('/$bunfs/')
  ? new URL('./queue/send-thread.ts', import.meta.url)
  : new URL('./send-thread.ts', import.meta.url)

/** A thread's answer, or `lost`: the thread died owing it. */
export type ThreadResult = JobAnswer | { kind: 'lost' }

export interface SendThreads {
  /** Channels whose sends go through the threads. */
  serves(channel: Channel): boolean
  /**
   * Composes and sends one claimed message on a thread, through the client's own SMTP account
   * when `target` names one (each thread keeps a share of its pool), else the instance's provider.
   */
  send(
    plan: SendPlan,
    message: MessageRow,
    contact: ContactRow,
    keepContent: boolean,
    rendered: RenderedMessage,
    unsubscribeUrl: string,
    target?: SmtpTarget | null,
  ): Promise<ThreadResult>
  /** Closes the pools of a client's SMTP account on every thread. */
  drop(target: SmtpTarget): void
  /** Ends thread `index` at once, as a crash would (what the tests of a dying thread use). */
  kill(index: number): void
  /** Live threads (a dead one's replacement counts once started). */
  alive(): number
  /** Sends handed to the threads and not answered yet. */
  inFlight(): number
  close(): Promise<void>
}

export interface SendThreadsOptions {
  config: Config
  /** The tracking-token key. */
  key: Buffer
  /** The channels to serve and the provider kind configured for each. */
  kinds: Partial<Record<Channel, string>>
  /** How many threads (HERALD_SEND_THREADS). */
  count: number
  log: Logger
}

/** Plans known to the threads before they are all forgotten and sent again as needed. */
const MAX_PLANS = 500
/** A thread owing an answer this long past the send deadline is taken for hung and ended. */
const HUNG_GRACE_MS = 10_000
/** Replacements of a thread that died young wait 0.1 s, doubling, up to this. */
const MAX_RESPAWN_DELAY_MS = 30_000

interface Slot {
  index: number
  worker: Worker | null
  /** The thread said it is set up. */
  ready: boolean
  /** The last uncaught error of the thread, if it had one. */
  error: string | null
  startedAt: number
  /** Deaths in a row within 5 s of starting (a thread that cannot start must not spin). */
  earlyDeaths: number
  owed: Map<number, { resolve: (r: ThreadResult) => void; since: number }>
  /** Plans this thread has been sent. */
  plans: Set<number>
  /** Clients' SMTP accounts this thread has been sent. */
  targets: Set<string>
  /** Jobs of this turn, posted together. */
  queued: SendJob[]
  closed: (() => void) | null
}

export function createSendThreads(options: SendThreadsOptions): SendThreads {
  const { config, log } = options
  const served = new Set(Object.keys(options.kinds) as Channel[])
  const hungMs = config.sendTimeoutMs + HUNG_GRACE_MS
  let closing = false
  let jobs = 0
  const waiting: (() => void)[] = []
  const slots: Slot[] = Array.from({ length: Math.max(1, options.count) }, (_, index) => ({
    index,
    worker: null,
    ready: false,
    error: null,
    startedAt: 0,
    earlyDeaths: 0,
    owed: new Map(),
    plans: new Set(),
    targets: new Set(),
    queued: [],
    closed: null,
  }))

  /** This thread's share of a pool of `size` connections (at least one each). */
  const shareOf = (size: number, slot: Slot) =>
    Math.max(1, Math.floor(size / slots.length) + (slot.index < size % slots.length ? 1 : 0))

  function spawn(slot: Slot) {
    if (closing) return
    const worker = new Worker(SEND_THREAD)
    ;(worker as Worker & { unref(): void }).unref() // a pool nobody closed must not keep the process alive
    slot.worker = worker
    slot.ready = false
    slot.error = null
    slot.startedAt = performance.now()
    worker.onmessage = (e: MessageEvent<FromThread>) => {
      const m = e.data
      if (m.type === 'ready') {
        slot.ready = true
        return
      }
      if (m.type === 'closed') return slot.closed?.()
      for (const a of m.answers) {
        const owed = slot.owed.get(a.job)
        if (!owed) continue
        slot.owed.delete(a.job)
        owed.resolve(a)
      }
    }
    worker.addEventListener('error', (e) => {
      // Bun's message holds a code frame and the stack; the `error: …` line is the message.
      const text = (e as ErrorEvent).message ?? ''
      if (slot.worker === worker) slot.error = /^error: (.*)$/m.exec(text)?.[1] ?? text.split('\n')[0] ?? null
    })
    worker.addEventListener('close', () => died(slot, worker))
    // HERALD_SMTP_POOL is the number of connections to the relay, shared between the threads.
    const smtpPool = shareOf(config.smtpPool, slot)
    const init: ToThread = {
      type: 'init',
      config: { ...config, smtpPool },
      key: options.key,
      kinds: options.kinds,
    }
    worker.postMessage(init)
    for (const wake of waiting.splice(0)) wake()
  }

  function died(slot: Slot, worker: Worker) {
    if (slot.worker !== worker) return
    slot.worker = null
    slot.plans.clear()
    slot.targets.clear()
    slot.queued = []
    const lost = [...slot.owed.values()]
    slot.owed.clear()
    const error = `the send thread could not start${slot.error ? `: ${slot.error}` : ''}`
    for (const owed of lost)
      owed.resolve(slot.ready ? { kind: 'lost' } : { job: 0, kind: 'refused', error, retryable: true })
    slot.closed?.()
    if (closing) return
    const young = performance.now() - slot.startedAt < 5_000
    slot.earlyDeaths = young ? slot.earlyDeaths + 1 : 0
    log.error(
      slot.ready
        ? 'send thread died; its sends in flight stay leased and are retried when the lease expires'
        : 'send thread could not start; its sends are retried later',
      { thread: slot.index, sends_in_flight: lost.length, error: slot.error },
    )
    const delay =
      slot.earlyDeaths === 0 ? 0 : Math.min(MAX_RESPAWN_DELAY_MS, 100 * 2 ** (slot.earlyDeaths - 1))
    setTimeout(() => spawn(slot), delay)
  }

  // A thread answers every send within the send deadline; one that does not is stuck (a bug:
  // it never renders) and is replaced like a dead one.
  const watchdog = setInterval(() => {
    const now = performance.now()
    for (const slot of slots) {
      const oldest = slot.owed.values().next().value
      if (slot.worker && oldest && now - oldest.since > hungMs) {
        log.error('send thread owes an answer past the send deadline; ending it', { thread: slot.index })
        slot.worker.terminate()
      }
    }
  }, 1_000)
  watchdog.unref()

  // Plan numbers: one per distinct plan (a campaign's content, sender, key…), sent to a thread
  // the first time it needs it. Plans are new objects per batch; their spec is compared once.
  const planIds = new WeakMap<SendPlan, number>()
  const bySpec = new Map<string, number>()
  const specs = new Map<number, PlanSpec>()
  let planSeq = 0
  const pems = new WeakMap<KeyObject, string>()
  const pemOf = (key: KeyObject) => {
    let pem = pems.get(key)
    if (pem === undefined) {
      pem = key.export({ type: 'pkcs8', format: 'pem' }) as string
      pems.set(key, pem)
    }
    return pem
  }

  // The spec travels with its number: a send waits for a live thread after numbering its plan,
  // and meanwhile other sends may have made the threads forget every plan.
  function planIdOf(plan: SendPlan): { id: number; spec: PlanSpec } {
    const known = planIds.get(plan)
    const knownSpec = known === undefined ? undefined : specs.get(known)
    if (known !== undefined && knownSpec) return { id: known, spec: knownSpec }
    const { dkim } = plan
    const spec: PlanSpec = {
      channel: plan.channel,
      sender: plan.sender,
      dkim: dkim && {
        domainName: dkim.domainName,
        keySelector: dkim.keySelector,
        headerFieldNames: dkim.headerFieldNames,
        privateKey: pemOf(dkim.privateKey),
      },
      idDomain: plan.idDomain,
      variables: plan.variables,
      bulk: plan.bulk,
      ...(plan.headers ? { headers: plan.headers } : {}),
    }
    const text = JSON.stringify(spec)
    let id = bySpec.get(text)
    if (id === undefined) {
      if (bySpec.size >= MAX_PLANS) {
        bySpec.clear()
        specs.clear()
        for (const slot of slots) {
          // Sends queued for this turn name plans the thread knows now: they go before it forgets.
          flush(slot)
          slot.plans.clear()
          slot.worker?.postMessage({ type: 'forget' } satisfies ToThread)
        }
      }
      id = ++planSeq
      bySpec.set(text, id)
      specs.set(id, spec)
    }
    planIds.set(plan, id)
    return { id, spec: specs.get(id)! }
  }

  async function liveSlot(): Promise<Slot> {
    for (;;) {
      let best: Slot | null = null
      for (const slot of slots)
        if (
          slot.worker &&
          (!best || slot.owed.size + slot.queued.length < best.owed.size + best.queued.length)
        )
          best = slot
      if (best) return best
      if (closing) throw new Error('the send threads are closed')
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
  }

  function flush(slot: Slot) {
    const batch = slot.queued
    slot.queued = []
    if (batch.length > 0) slot.worker?.postMessage({ type: 'send', jobs: batch } satisfies ToThread)
  }

  for (const slot of slots) spawn(slot)

  return {
    serves: (channel) => served.has(channel),

    async send(plan, message, contact, keepContent, rendered, unsubscribeUrl, target = null) {
      const { id: planId, spec } = planIdOf(plan)
      const slot = await liveSlot()
      if (!slot.plans.has(planId)) {
        slot.plans.add(planId)
        slot.worker!.postMessage({ type: 'plan', id: planId, spec } satisfies ToThread)
      }
      if (target && !slot.targets.has(target.key)) {
        slot.targets.add(target.key)
        const { key, url, pool } = target
        slot.worker!.postMessage({ type: 'target', key, url, pool: shareOf(pool, slot) } satisfies ToThread)
      }
      const job = ++jobs
      return new Promise<ThreadResult>((resolve) => {
        slot.owed.set(job, { resolve, since: performance.now() })
        const { id, clientId, to } = message
        if (
          slot.queued.push({
            job,
            plan: planId,
            message: { id, clientId, to },
            contact,
            keepContent,
            rendered,
            unsubscribeUrl,
            target: target?.key ?? null,
          }) === 1
        )
          queueMicrotask(() => flush(slot))
      })
    },

    drop(target) {
      for (const slot of slots)
        if (slot.targets.delete(target.key))
          slot.worker?.postMessage({ type: 'drop', key: target.key } satisfies ToThread)
    },

    kill(index) {
      slots[index]?.worker?.terminate()
    },

    alive: () => slots.filter((s) => s.worker).length,
    inFlight: () => slots.reduce((n, s) => n + s.owed.size, 0),

    async close() {
      closing = true
      clearInterval(watchdog)
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker
          if (!worker) return
          // The providers close their pools (QUIT), then the thread ends; a thread that does not
          // answer within 5 s is ended anyway.
          await new Promise<void>((resolve) => {
            slot.closed = resolve
            worker.postMessage({ type: 'close' } satisfies ToThread)
            setTimeout(resolve, 5_000).unref()
          })
          worker.terminate()
        }),
      )
      for (const wake of waiting.splice(0)) wake()
    },
  }
}
