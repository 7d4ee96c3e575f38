import type { AppContext } from '../context'
import type { WebhookDeliveryRow, WebhookRow } from '../db/schema'
import { webhookById, webhookQueueOf } from '../db/webhook-queue'
import { createLeasedWorker, type LeasedWorker, type PassResult } from '../queue/leased-worker'
import type { AttemptResult } from './attempt'
import {
  DEFAULT_SCHEDULE,
  DEFAULT_TIMEOUT_MS,
  type DeliveryPolicy,
  type Outcome,
  recordOutcomes,
  send,
  signingSecrets,
  succeeded,
} from './deliver'
import { fanOut } from './fanout'
import { cachingResolver, hostResolver } from './ssrf'

// The in-process delivery worker. The outbox rows are the truth: the worker claims an
// endpoint's due rows with a lease (status `sending`, `next_attempt_at` = lease end) into that
// endpoint's lane, and the lane keeps up to `inFlight` requests open to the endpoint at once
// (Bun's fetch reuses keep-alive connections), refilling its queue before it runs dry. Outcomes
// are written a few milliseconds later in one transaction for all that came back meanwhile; a
// failure is written at once (it may disable the endpoint). A crash before an outcome is
// written leaves the row leased: it is sent again, with the same webhook-id, once the lease runs
// out (HERALD_WEBHOOK_LEASE_MS), by whichever process is running then.
//
// Order: rows are claimed and started oldest first, but with more than one request in flight an
// endpoint may receive (and finish) them out of order; HERALD_WEBHOOK_CONCURRENCY=1 gives one
// request at a time, in event order except for retries. Receivers de-duplicate and order by the
// envelope (webhook-id, created_at), as Standard Webhooks recommends. With several processes on
// one database, one at a time holds an endpoint's lane (a lease in webhook_lanes, renewed at each
// claim, given up when the lane empties): the others skip that endpoint until the lease ends, so
// the order holds across processes too.
//
// Each endpoint has its own lane, so a slow endpoint holds only its own `inFlight` requests.
// While nothing is due the worker sleeps until the earliest `next_attempt_at` (or the next
// cheap look for new events), so thousands of deliveries waiting for a retry cost nothing.

export interface WebhookWorkerOptions {
  /** Delays before each attempt, in ms; the first is normally 0. */
  schedule?: readonly number[]
  timeoutMs?: number
  /** How often to look for new events when not kicked. */
  pollMs?: number
  /** How long a claim holds before another pass may take the rows again (HERALD_WEBHOOK_LEASE_MS). */
  leaseMs?: number
  /** Endpoints served at once (each with its own lane). */
  endpoints?: number
  /** Requests in flight to one endpoint at once (default HERALD_WEBHOOK_CONCURRENCY). */
  inFlight?: number
  /** Deliveries one lane holds claimed (queued or in flight) at most. */
  perEndpoint?: number
  /** Successful outcomes wait at most this long to be written together. */
  flushMs?: number
  /** How long one look-up of an endpoint's host serves its attempts (0: one per attempt). */
  dnsCacheMs?: number
}

type ClaimedRow = WebhookDeliveryRow

/** One endpoint's work in this process: its claimed rows and its requests in flight. */
interface Lane {
  id: string
  hook: WebhookRow
  secrets: string[]
  /** Leased rows not yet sent, oldest first. */
  queue: ClaimedRow[]
  inFlight: number
  /** Asked the worker for more rows and not yet given a claim. */
  hungry: boolean
}

/** Outcomes waiting this many are written at once. */
const FLUSH_AT = 256

export function createWebhookWorker(app: AppContext, options: WebhookWorkerOptions = {}): LeasedWorker {
  const policy: DeliveryPolicy = {
    schedule: options.schedule ?? DEFAULT_SCHEDULE,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  }
  const pollMs = options.pollMs ?? 50
  const leaseMs = options.leaseMs ?? app.config.webhookLeaseMs
  const maxLanes = options.endpoints ?? 64
  const inFlight = Math.max(1, options.inFlight ?? app.config.webhookConcurrency)
  const perEndpoint = Math.max(options.perEndpoint ?? 100, 2 * inFlight)
  const flushMs = options.flushMs ?? 10
  const resolve = cachingResolver(hostResolver(app.config.dnsServers), options.dnsCacheMs ?? 5000, () =>
    app.clock.now(),
  )
  const q = webhookQueueOf(app.store)
  // This worker's name on the lanes it holds in the database.
  const holder = Bun.randomUUIDv7()

  let stopped = false
  let nextDue: number | null | undefined
  const lanes = new Map<string, Lane>()
  /** Endpoints whose lane another process holds, and when its lease ends: looked at again then. */
  const elsewhere = new Map<string, number>()
  /** Endpoints a claim is taking rows for: their lanes are not given up meanwhile. */
  const claiming = new Set<string>()
  /** Lanes being given up: a claim of the endpoint waits, or the release could undo its take. */
  const releasing = new Map<string, Promise<void>>()
  /** Lanes giving late rows back: a claim of the endpoint waits, or it would take newer rows first. */
  const returning = new Map<string, Promise<void>>()
  /** Lanes whose late rows wait for the claim under way to end (it pumps them then). */
  const deferred = new Set<string>()
  const tasks = new Set<Promise<void>>()
  let outcomes: Outcome[] = []
  let flushTimer: ReturnType<typeof setTimeout> | null = null
  // Writes of outcomes under way: on PostgreSQL a commit takes a round trip or more, and drain()
  // must not call the worker idle before it is done.
  const flushing = new Set<Promise<void>>()
  // Set once the worker exists: a lane running low kicks it for its next claim.
  let kick = () => {}

  /** Writes the waiting outcomes in one transaction; on failure they wait for the next try. */
  async function flush() {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = null
    if (outcomes.length === 0) return
    const batch = outcomes
    outcomes = []
    const writing = write(batch)
    flushing.add(writing)
    try {
      await writing
    } finally {
      flushing.delete(writing)
    }
  }

  async function write(batch: Outcome[]) {
    try {
      await recordOutcomes(app, batch, policy)
    } catch (err) {
      // Kept (their rows stay leased meanwhile) and written with the next ones.
      app.log.error('webhook outcomes not written', { error: String(err), count: batch.length })
      // Once stopped there is no next try: the rows stay leased and are sent again after it.
      if (stopped) return
      outcomes = batch.concat(outcomes)
      flushTimer = setTimeout(flush, Math.max(flushMs, 50))
    }
  }

  async function record(o: Outcome) {
    outcomes.push(o)
    if (!succeeded(o.result) || outcomes.length >= FLUSH_AT) await flush()
    else flushTimer ??= setTimeout(flush, flushMs)
  }

  /**
   * Gives rows back, due again (same attempt count) at the time they were made: claimed again,
   * they keep their place before the endpoint's newer events.
   */
  async function giveBack(rows: readonly ClaimedRow[]) {
    const now = app.clock.now()
    try {
      for (const r of rows) await q.releaseDelivery(r.id, Math.min(r.createdAt, now), r.nextAttemptAt!)
    } catch (err) {
      // A database that cannot write (a full volume): the rows keep their leases and are due
      // again when those expire. Thrown here it would end the process from a request's callback.
      app.log.error('webhook deliveries not released', { error: String(err), count: rows.length })
    }
  }

  /** Gives the lane's unsent rows back and forgets the lane. */
  async function close(lane: Lane) {
    const rows = lane.queue
    lane.queue = []
    await giveBack(rows)
    if (lane.inFlight === 0) await forget(lane)
  }

  /** The lane is empty: forgotten here and given up for others (or left to the claim filling it). */
  async function forget(lane: Lane) {
    if (claiming.has(lane.id)) return
    lanes.delete(lane.id)
    await letGo(lane.id)
  }

  /** Gives the endpoint's lane up in the database; a claim of it meanwhile waits for this. */
  function letGo(id: string): Promise<void> {
    const done: Promise<void> = q
      .releaseLane(id, holder)
      // Not given up: it stays this worker's until its lease ends.
      .catch((err) => app.log.error('webhook lane not released', { error: String(err), webhookId: id }))
      .finally(() => {
        if (releasing.get(id) === done) releasing.delete(id)
      })
    releasing.set(id, done)
    return done
  }

  /** Starts requests while the lane has room and rows; asks for more rows when it runs low. */
  async function pump(lane: Lane) {
    // Whether the endpoint is still active is read once per pump that starts requests (a PATCH
    // may have disabled it, or a 410 of a request in flight): the loop below is synchronous, so
    // the answer cannot change while it runs.
    if (lane.inFlight < inFlight && lane.queue.length > 0)
      if (stopped || !lane.hook.active || !(await q.isHookActive(lane.id))) return await close(lane)
    // A slow endpoint can keep rows queued here until their lease (and the lane's) is nearly over;
    // started then, a request could outlast it while another process takes the lane and sends
    // the same rows. Those rows go back instead, and the next claim takes them again, renewing
    // the lane. (Half the lease at most: a lease shorter than the timeout would give every row back.)
    const lateAt = app.clock.now() + Math.min(policy.timeoutMs, leaseMs / 2)
    const late = lane.queue.findIndex((r) => r.nextAttemptAt! < lateAt)
    if (late >= 0 && lane.inFlight < inFlight) {
      // A claim under way would not see these rows (still leased) and could take newer ones
      // first: it pumps the lane when it ends, and they go back then.
      if (claiming.has(lane.id)) return void deferred.add(lane.id)
      const done = giveBack(lane.queue.splice(late))
      returning.set(lane.id, done)
      await done.finally(() => {
        if (returning.get(lane.id) === done) returning.delete(lane.id)
      })
    }
    while (lane.inFlight < inFlight && lane.queue.length > 0) {
      const row = lane.queue.shift()!
      lane.inFlight++
      const task: Promise<void> = attempt(lane, row)
      tasks.add(task)
      task.finally(() => tasks.delete(task))
    }
    if (lane.queue.length === 0 && lane.inFlight === 0) await forget(lane)
    else if (lane.queue.length < inFlight && !lane.hungry && !stopped) {
      lane.hungry = true
      kick()
    }
  }

  async function attempt(lane: Lane, row: ClaimedRow) {
    let result: AttemptResult
    try {
      result = await send(app, lane.hook, row, policy, lane.secrets, resolve)
    } catch (err) {
      // send() answers every network failure itself; this is a bug or a database error.
      result = { status: null, durationMs: 0, excerpt: null, error: String((err as Error)?.message ?? err) }
    }
    lane.inFlight--
    const hook = lane.hook
    await record({ hook, delivery: row, result, at: app.clock.now() })
    // A failure may have disabled the endpoint (410, failing for 5 days): read it again.
    if (!succeeded(result)) lane.hook = (await webhookById(app.db, lane.id)) ?? { ...hook, active: false }
    await pump(lane)
  }

  /** Claims rows for every active endpoint whose lane has room (or that has none yet). */
  async function claim(now: number): Promise<number> {
    await q.expireLeases(now)
    for (const [id, until] of elsewhere)
      if (until <= now) {
        elsewhere.delete(id)
        nextDue = undefined
      }
    const busy = [...lanes.values()]
      .filter((l) => l.queue.length >= inFlight || !l.hook.active)
      .map((l) => l.id)
    let claimed = 0
    for (const id of await q.idleHooks(busy.concat([...elsewhere.keys()]))) {
      if (!lanes.has(id) && lanes.size >= maxLanes) continue
      claiming.add(id)
      let n: number
      try {
        n = await fill(id, now)
      } catch (err) {
        // Late rows it kept from going back must not wait for a claim that is not coming.
        claiming.delete(id)
        const lane = lanes.get(id)
        if (deferred.delete(id) && lane) await pump(lane).catch(() => {})
        throw err
      } finally {
        claiming.delete(id)
      }
      claimed += n
      const lane = lanes.get(id)
      // Late rows this claim kept from going back (see pump) go back now.
      const waited = deferred.delete(id)
      if (lane && (n > 0 || waited)) await pump(lane)
      else if (lane && lane.queue.length === 0 && lane.inFlight === 0) await forget(lane)
    }
    return claimed
  }

  /** Takes the endpoint's lane and claims its due rows into it; answers how many. */
  async function fill(id: string, now: number): Promise<number> {
    await releasing.get(id)
    await returning.get(id)
    // The lane's lease is the rows' and starts with them: it ends no sooner than any row its
    // holder claimed, so a dead holder's lane is free again when its rows are due again.
    const take = await q.takeLane(id, holder, now, now + leaseMs)
    let lane = lanes.get(id)
    if (lane) lane.hungry = false
    if (!take) return 0
    if (!take.held) {
      // Another process delivers to this endpoint. Rows still queued here were leased no longer
      // than this worker's lane was, so they are not this worker's any more.
      elsewhere.set(id, take.until)
      nextDue = undefined
      if (lane) lane.queue = []
      return 0
    }
    const held = lane ? lane.queue.length + lane.inFlight : 0
    const rows = await q.claimForHook(id, now, now + leaseMs, perEndpoint - held)
    // The endpoint and its signing secrets are read once per claim (a rotated secret keeps
    // signing for 24 h anyway).
    const hook = rows.length > 0 ? await webhookById(app.db, id) : undefined
    if (!hook) {
      for (const r of rows) await q.releaseDelivery(r.id, now, r.nextAttemptAt!)
      if (!lane) await letGo(id)
      return 0
    }
    rows.sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    if (!lane) {
      lane = { id, hook, secrets: [], queue: [], inFlight: 0, hungry: false }
      lanes.set(id, lane)
    }
    lane.hook = hook
    lane.secrets = signingSecrets(app, hook)
    lane.queue.push(...rows)
    return rows.length
  }

  async function pass(): Promise<PassResult> {
    let worked = false
    for (;;) {
      const r = await fanOut(app)
      if (r.created > 0) {
        nextDue = undefined
        worked = true
      }
      if (!r.more) break
    }
    if (!stopped && (await claim(app.clock.now())) > 0) {
      nextDue = undefined
      worked = true
    }
    if (nextDue === undefined) nextDue = await q.nextDueAt([...lanes.keys(), ...elsewhere.keys()])
    // Lanes at work kick the worker when they run low; until then wake at the next due retry, or
    // when another process's lane lease ends.
    let nextAt = nextDue ?? null
    for (const until of elsewhere.values()) if (nextAt === null || until < nextAt) nextAt = until
    return { worked, nextAt }
  }

  const worker = createLeasedWorker(app, {
    name: 'webhooks',
    async recover() {
      // Claims of a process that died are due again once their leases ran out (same webhook-id).
      await q.expireLeases(app.clock.now())
    },
    pass,
    idleMs: pollMs,
    async settle() {
      stopped = true
      for (const lane of lanes.values()) await close(lane)
      // In-flight attempts finish (each is bounded by the timeout) and their outcomes are
      // written; what is left stays leased and is due again when the lease runs out.
      await Promise.race([Promise.allSettled([...tasks]), Bun.sleep(policy.timeoutMs + 1000)])
      await flush()
      // Lanes emptied meanwhile were given up; one with a request still open keeps its lease.
      await Promise.allSettled([...releasing.values()])
    },
    // A pass only starts requests: drain() waits for them (and their outcomes) before calling
    // the worker idle.
    inflight() {
      if (tasks.size > 0) return Promise.race([...tasks])
      if (flushing.size > 0) return Promise.race([...flushing])
      if (outcomes.length > 0) return Promise.resolve().then(flush)
      return null
    },
    // New events or a lane running low: the next due time must be looked up again.
    onKick: () => {
      nextDue = undefined
    },
  })
  kick = worker.kick
  return worker
}

/** The webhook worker, started. */
export const startWebhookWorker = (app: AppContext, options: WebhookWorkerOptions = {}) =>
  createWebhookWorker(app, options).start()
