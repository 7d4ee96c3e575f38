import type { Channel } from '../channels/types'
import type { AppContext } from '../context'
import { DIALECT } from '../db/dialect'
import type { Outbox } from '../db/outbox'
import type { ContactRow, MessageRow } from '../db/schema'
import { createSlice } from '../lib/cooperate'
import type { Gate } from '../lib/gate'
import { createHeapNudge } from '../lib/heap-nudge'
import type { Finished, Outcome } from './outcome'
import type { OutcomeWriter } from './outcome-writer'
import type { SendPlan } from './plan'
import type { BatchChecks, RecipientStep } from './recipient'
import type { Sources } from './sources'
import type { MessageSource } from './sources/types'

// One claimed batch, whatever its messages' sources: each message planned by its source
// (one plan per campaign, cached), checked, then sent with bounded concurrency per channel, and
// the outcomes written as they come. Afterwards each source hears how its messages went (a
// campaign that cannot send, or whose provider refused everything so far, fails). The batch
// works in time slices (src/lib/cooperate.ts): with an instant provider its sends never wait on
// I/O, so it yields a turn of the event loop every SLICE_MS and requests are answered meanwhile.
// Sends take their places at the lane's gate, shared with the lane's next batch: once this one
// has started its last send, the worker may claim the next and its sends start as these end,
// instead of the pipeline draining to nothing between batches (worker.ts).

/** The lane a batch belongs to. */
export interface BatchLane {
  /** The lane's sends in flight on `channel` (HERALD_SEND_CONCURRENCY), shared by its batches. */
  gate(channel: Channel): Gate
  /** Every send of the batch has started (`sends` of them; zero when none was to be made). */
  started(sends: number): void
}

/**
 * Outcomes are written every FLUSH_MS of sending (at most FLUSH_MAX at once): a crash leaves
 * ~25 ms of sends unrecorded whatever the speed, and fast providers still commit in groups
 * (a commit rewrites the touched index pages, so one per message would halve throughput).
 */
const FLUSH_MS = 25
const FLUSH_MAX = 256
/**
 * Growth of the JS heap after which a finished batch asks for a full collection (src/lib/heap-nudge.ts):
 * a long send's peak RSS follows how much promoted garbage JSC lets pile up, not what stays live.
 * 16 MB since renders moved to a render thread, whose own heap now shares the process's memory
 * (the journey bench's peak: 250 MB with 32 MB, 219 MB with 16 MB; `GET` p99 held under 50 ms).
 */
const HEAP_NUDGE_BYTES = 16 * 1024 * 1024
/**
 * On PostgreSQL a group's write is a round trip per statement, and takes its turn behind the
 * process's other transactions (one at a time): a new write every FLUSH_MS piled up there, up to
 * one per send in flight, and a pause or any other transaction waited behind them all. There a
 * batch writes one group at a time, the outcomes that finish meanwhile going in the next.
 */
const ONE_WRITE_AT_A_TIME = DIALECT === 'postgres'

export function createBatchProcessor(
  app: AppContext,
  deps: {
    outbox: Outbox
    sources: Sources
    /** What the batch's checks read once, for its contacts. */
    checksFor: (contacts: readonly ContactRow[]) => Promise<BatchChecks>
    prepare: RecipientStep
    writeOutcomes: OutcomeWriter
    /** A send whose turn comes with less than this left of its lease goes back to the queue. */
    lateMs: number
  },
) {
  const { clock } = app
  const { outbox, sources, checksFor, prepare, writeOutcomes, lateMs } = deps
  const nudgeHeap = createHeapNudge({ budget: HEAP_NUDGE_BYTES })

  return async function processBatch(rows: MessageRow[], lane: BatchLane): Promise<void> {
    const now = clock.now()
    const slice = createSlice()
    const contacts = await outbox.contactsByIds([...new Set(rows.map((r) => r.contactId))])
    const byId = new Map(contacts.map((c) => [c.id, c]))
    const checks = await checksFor(contacts)
    const plansOf = new Map<MessageSource, Map<string, SendPlan | Error>>()
    // Outcomes are written in groups as sends complete, not once per batch: a kill then leaves
    // only the last few sends unrecorded (to be sent again with the same Message-ID).
    let unwritten: Finished[] = []
    let lastFailure: string | null = null
    let since = performance.now()
    // The group being written (PostgreSQL only, see ONE_WRITE_AT_A_TIME).
    let writing: Promise<void> | null = null
    const flush = async () => {
      if (ONE_WRITE_AT_A_TIME) while (writing) await writing.catch(() => {})
      // Taken before the write awaits: sends finishing meanwhile start the next group.
      const group = unwritten
      unwritten = []
      since = performance.now()
      if (group.length === 0) return
      const write = writeOutcomes(group)
      if (ONE_WRITE_AT_A_TIME) writing = write
      try {
        await write
      } catch (err) {
        unwritten = group.concat(unwritten)
        throw err
      } finally {
        if (writing === write) writing = null
      }
    }
    const finish = async (f: Finished) => {
      if (f.outcome.kind === 'failed') lastFailure = f.outcome.error
      unwritten.push(f)
      if (unwritten.length >= FLUSH_MAX || performance.now() - since >= FLUSH_MS) await flush()
    }
    const pending: { message: MessageRow; channel: Channel; run: () => Promise<Outcome> }[] = []
    for (const m of rows) {
      if (slice.spent()) await slice.next()
      const source = sources.of(m)
      let plans = plansOf.get(source)
      if (!plans) {
        plans = new Map()
        plansOf.set(source, plans)
      }
      const key = await source.planKey(m)
      let plan = plans.get(key)
      if (!plan) {
        plan = await source.plan(m)
        plans.set(key, plan)
      }
      if (plan instanceof Error) {
        await finish({ message: m, outcome: await source.unplannable(m, plan, now) })
        continue
      }
      const step = await prepare(m, source, plan, byId.get(m.contactId), now, checks)
      if (typeof step === 'function') pending.push({ message: m, channel: plan.channel, run: step })
      else await finish({ message: m, outcome: step })
    }
    await flush()
    // Each channel's sends run concurrently up to HERALD_SEND_CONCURRENCY (the lane's gate);
    // channels in parallel. A send that could not run (the send threads closing) or whose outcome
    // could not be written fails the batch once every send has ended; its messages keep their leases.
    let broken: unknown = null
    const channels = [...new Set(pending.map((p) => p.channel))]
    const inFlight = await Promise.all(
      channels.map(async (channel) => {
        const gate = lane.gate(channel)
        const sends: Promise<void>[] = []
        for (const p of pending) {
          if (p.channel !== channel) continue
          const turn = gate.enter()
          if (turn) await turn
          // A send that waited its turn (a slow provider ahead of it) until less than a call's
          // timeout is left of its lease could still run when the lease ends and another claim
          // sends it again. It goes back to the queue instead, due now, and is claimed again
          // with a lease of its own.
          if (clock.now() + lateMs >= p.message.nextAttemptAt) {
            gate.leave()
            sends.push(
              finish({ message: p.message, outcome: { kind: 'deferred', at: clock.now() } }).catch((err) => {
                broken ??= err
              }),
            )
            continue
          }
          sends.push(
            p
              .run()
              .then(async (outcome) => await finish({ message: p.message, outcome }))
              .catch((err) => {
                broken ??= err
              })
              .finally(gate.leave),
          )
          if (slice.spent()) await slice.next()
        }
        return sends
      }),
    )
    lane.started(pending.length)
    await Promise.all(inFlight.flat())
    await flush()
    nudgeHeap()
    for (const [source, plans] of plansOf) await source.afterBatch?.({ plans, lastFailure })
    if (broken) throw broken
  }
}
