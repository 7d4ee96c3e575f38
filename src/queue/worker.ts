import type { Channel, ChannelProvider } from '../channels/types'
import type { AppContext } from '../context'
import { outboxOf } from '../db/outbox'
import { createGate, type Gate } from '../lib/gate'
import { mapInOrder } from '../lib/in-order'
import { type BatchLane, createBatchProcessor } from './batch'
import type { SendDeps } from './deps'
import { createLeasedWorker, type LeasedWorker, type PassResult } from './leased-worker'
import { createOutcomeWriter } from './outcome-writer'
import { createPlanner } from './plan'
import { createProfileProviders } from './profile-providers'
import { createRecipientStep } from './recipient'
import type { SendThreads } from './send-threads'
import { sourcesOf } from './sources'
import type { MessageSource } from './sources/types'

// The send worker. The outbox is the truth: each pass lets every source do its
// preparatory work (a launching campaign's audience copy), claims due messages with a lease,
// shared fairly between the sources' lanes (each sending campaign, the transactional queue),
// checks each message at send time, sends through the channel's provider with bounded
// concurrency, and writes each outcome with its event and counters in one transaction (grouped
// every 25 ms). A crash leaves at most the sends of the last moments unrecorded: their messages
// are queued again when their leases run out (HERALD_SEND_LEASE_MS) and resent with the same
// Message-ID; never sooner, since another process on the same database may still be sending them. The sources and the domain's
// rules come in `deps` (deps.ts), wired in src/sending.ts.

export interface SendWorkerOptions {
  /** The instance's providers; a client with accounts of its own gets providers made from them. */
  providers: Record<Channel, ChannelProvider>
  /** Messages claimed per pass, shared fairly between the sources' lanes. */
  batchSize?: number
  /** How often to look for work while something is sending. */
  pollMs?: number
  /** How long a claim holds before another pass may take the message again (HERALD_SEND_LEASE_MS). */
  leaseMs?: number
  /** Delays before each retry of a retryable failure; one more failure fails the message. */
  retryDelays?: readonly number[]
  /** Send threads for the channels whose providers run off the main thread (start.ts). */
  threads?: SendThreads | null
}

export const DEFAULT_RETRY_DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000] as const
/** How often an idle worker (nothing sending) looks for work it was not told about. */
const IDLE_POLL_MS = 1_000
/** Batches of one lane in flight at once: the one starting its sends, and the one finishing. */
const GROUPS_PER_LANE = 2

export function createSendWorker(app: AppContext, deps: SendDeps, options: SendWorkerOptions): LeasedWorker {
  const { clock } = app
  // Under HERALD_SEND_RATE a batch is at most one second's worth, so a pause takes hold in a second.
  const batchSize = Math.min(options.batchSize ?? 250, app.config.sendRate ?? Number.POSITIVE_INFINITY)
  const pollMs = options.pollMs ?? 100
  const leaseMs = options.leaseMs ?? app.config.sendLeaseMs
  const retryDelays = options.retryDelays ?? DEFAULT_RETRY_DELAYS
  const concurrency = app.config.sendConcurrency
  // Refills (below) are the running loop's: driven pass by pass (runOnce: tests, the CLI) a lane
  // gets one batch a pass. Under HERALD_SEND_RATE the rate is the bound, and a batch stays one
  // second's worth so that a pause takes hold within a second.
  let refills = false

  const outbox = outboxOf(app.store, deps.outboxRules)
  const profiles = createProfileProviders(app, {
    instance: options.providers,
    profileOf: async (clientId) => await deps.sendingProfile(app, clientId),
    feedback: () => deps.feedback(app),
    dropped: (target) => options.threads?.drop(target),
  })
  const planner = createPlanner(
    app,
    outbox,
    async (clientId, channel) => (await profiles.route(clientId, channel)).provider.capabilities,
    deps,
  )
  const sources = sourcesOf(deps.sources.map((create) => create(app, outbox, planner)))
  const prepare = createRecipientStep(app, {
    profiles,
    retryDelays,
    key: deps.trackingKey(app),
    outbox,
    threads: options.threads,
    deps,
  })
  const writeOutcomes = createOutcomeWriter(app, outbox, sources, deps.recordDelivered)
  const suppressedAmong = deps.suppressedAmong(app.db)
  const processBatch = createBatchProcessor(app, {
    outbox,
    sources,
    checksFor: async (contacts) => ({ suppressed: await suppressedAmong(contacts) }),
    prepare,
    writeOutcomes,
    // A call's timeout, but at most half the lease: a lease barely longer than the timeout would
    // otherwise send back every message that waited its turn at all.
    lateMs: Math.min(app.config.sendTimeoutMs, leaseMs / 2),
  })

  // Each lane's claim is sent as a group of its own. A lane whose group is still starting its
  // sends is not claimed again, and the others are: one campaign's slow tail (a provider call
  // stalling, up to HERALD_SEND_TIMEOUT_MS) never holds another's sends, nor the next claim.
  // Once a full group has started its last send, the lane's next batch is claimed right away
  // (at most GROUPS_PER_LANE in flight) and its sends take the places the last ones leave at
  // the lane's gate: the lane's sends in flight stay at HERALD_SEND_CONCURRENCY instead of
  // draining to none at the end of every batch. A group kicks the worker when it ends.
  const groups = new Map<string, Set<Promise<void>>>()
  const starting = new Set<string>()
  const gates = new Map<string, Gate>()
  // Refill claims under way: their group is not in `groups` until the claim answers, and a stop
  // must wait for it (else its sends would go out with the process exiting, unrecorded).
  const refilling = new Set<Promise<unknown>>()
  let stopping = false

  const free = (key: string) => !starting.has(key) && (groups.get(key)?.size ?? 0) < GROUPS_PER_LANE

  function laneOf(key: string, whenStarted: (sends: number) => void): BatchLane {
    return {
      gate(channel) {
        const name = `${key}/${channel}`
        let gate = gates.get(name)
        if (!gate) {
          gate = createGate(concurrency)
          gates.set(name, gate)
        }
        return gate
      },
      started: whenStarted,
    }
  }

  /**
   * Claims up to `limit` of the lane's due messages and starts sending them as a group; null if
   * none. Resolves once claimed, with the group's end in `done` (a bare promise would be adopted).
   */
  async function claimGroup(
    source: MessageSource,
    lane: string,
    key: string,
    limit: number,
  ): Promise<{ done: Promise<void> } | null> {
    const now = clock.now()
    // The lane is not free while its claim is under way, so no second claim overtakes it.
    starting.add(key)
    let seqs: number[]
    try {
      seqs = await source.claim(lane, now, now + leaseMs, limit)
    } catch (err) {
      starting.delete(key)
      throw err
    }
    if (seqs.length === 0) {
      starting.delete(key)
      return null
    }
    let started = false
    const onStarted = (sends: number) => {
      if (started) return
      started = true
      starting.delete(key)
      // A full batch that sent: more is likely due, claimed now. (Held messages, a paused
      // campaign's, start no send: no refill then, so a claim never loops without sending.)
      if (refills && !stopping && sends > 0 && seqs.length === limit && free(key)) {
        const refill = claimGroup(source, lane, key, limit)
          .catch((err) =>
            app.log.error('send claim failed', { lane: key, error: String((err as Error)?.stack ?? err) }),
          )
          .finally(() => refilling.delete(refill))
        refilling.add(refill)
      }
    }
    const rows = await outbox.claimedRows(seqs)
    // The lane's set is read after that await: one read before it may have emptied and left the
    // map meanwhile (its last group ended), and a group added there would go untracked by a stop.
    const set = groups.get(key) ?? new Set<Promise<void>>()
    groups.set(key, set)
    const group: Promise<void> = processBatch(rows, laneOf(key, onStarted))
      .catch((err) => {
        // Its messages keep their leases and are due again when these expire.
        app.log.error('send batch failed', { lane: key, error: String((err as Error)?.stack ?? err) })
      })
      .finally(() => {
        onStarted(0)
        set.delete(group)
        if (set.size === 0) {
          groups.delete(key)
          for (const name of gates.keys()) if (name.startsWith(`${key}/`)) gates.delete(name)
        }
        worker.kick()
      })
    set.add(group)
    return { done: group }
  }

  async function pass(): Promise<PassResult> {
    let worked = false
    for (const source of sources.all) if (await source.beforeClaim?.(clock.now())) worked = true
    // Read after the audience copy: what it queued this pass is due in this pass.
    const now = clock.now()
    await outbox.expireLeases(now)
    let nextAt: number | null = null
    const lanes = (
      await mapInOrder(sources.all, async (source) => {
        const due = await source.due(now)
        if (due.nextAt !== null) nextAt = nextAt === null ? due.nextAt : Math.min(nextAt, due.nextAt)
        return due.lanes
          .map((lane) => ({ source, lane, key: `${source.kind}:${lane}` }))
          .filter((l) => free(l.key))
      })
    ).flat()
    const started: Promise<void>[] = []
    if (lanes.length > 0) {
      const share = Math.max(1, Math.ceil(batchSize / lanes.length))
      for (const { source, lane, key } of lanes) {
        const group = await claimGroup(source, lane, key, share)
        if (group) started.push(group.done)
      }
    }
    // The pass lasts until one of its groups is done (all of them for one lane, as before):
    // the next pass then claims for the lanes that are free, whatever the others still send.
    if (started.length > 0) {
      await Promise.race(started)
      worked = true
    }
    for (const source of sources.all) if (await source.afterPass?.(now)) worked = true
    if (worked) return { worked }
    // Retries and throttled messages come due by themselves, and so does a message whose lease
    // runs out (another process died holding it): look again then, at most every pollMs.
    const leaseEnd = await outbox.nextLeaseEnd()
    if (leaseEnd !== null) nextAt = nextAt === null ? leaseEnd : Math.min(nextAt, leaseEnd)
    return { worked, nextAt: nextAt === null ? null : Math.max(nextAt, now + pollMs) }
  }

  const worker: LeasedWorker = createLeasedWorker(app, {
    name: 'send',
    // Messages a killed process held are due again once their leases ran out, with the same
    // Message-ID; those of a campaign that was cancelled or failed meanwhile will never be sent.
    recover: async () => void (await outbox.expireLeases(clock.now())),
    pass,
    idleMs: IDLE_POLL_MS,
    inflight: () => {
      const all = [...groups.values()].flatMap((set) => [...set])
      return all.length > 0 ? Promise.race(all) : null
    },
    // Sends in flight end within HERALD_SEND_TIMEOUT_MS and their outcomes are written.
    settle: async () => {
      stopping = true
      while (groups.size > 0 || refilling.size > 0)
        await Promise.all([...refilling, ...[...groups.values()].flatMap((set) => [...set])])
    },
  })
  return {
    ...worker,
    start() {
      refills = app.config.sendRate === null
      worker.start()
      return this
    },
    // No refill once stopping: the sends in flight end, no new batch starts meanwhile.
    async stop() {
      stopping = true
      await worker.stop()
      await profiles.close()
    },
  }
}

/** The send worker, started (tests that do not drive it pass by pass). */
export const startSendWorker = (app: AppContext, deps: SendDeps, options: SendWorkerOptions) =>
  createSendWorker(app, deps, options).start()
