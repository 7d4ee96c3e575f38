import type { Channel } from '../channels/types'
import type { AppContext } from '../context'
import type { Outbox } from '../db/outbox'
import type { MessageRow } from '../db/schema'
import { createSlice } from '../lib/cooperate'
import { createOutcomeWriter, type Finished, type Outcome } from './outcome'
import type { SendPlan } from './plan'
import type { RecipientStep } from './recipient'
import type { Sources } from './sources'
import type { MessageSource } from './sources/types'

// One claimed batch, whatever its messages' sources: each message planned by its source
// (one plan per campaign, cached), checked, then sent with bounded concurrency per channel, and
// the outcomes written as they come. Afterwards each source hears how its messages went (a
// campaign that cannot send, or whose provider refused everything so far, fails). The batch
// works in time slices (src/lib/cooperate.ts): with an instant provider its sends never wait on
// I/O, so it yields a turn of the event loop every SLICE_MS and requests are answered meanwhile.

/**
 * Outcomes are written every FLUSH_MS of sending (at most FLUSH_MAX at once): a crash leaves
 * ~25 ms of sends unrecorded whatever the speed, and fast providers still commit in groups
 * (a commit rewrites the touched index pages, so one per message would halve throughput).
 */
const FLUSH_MS = 25
const FLUSH_MAX = 256

export function createBatchProcessor(
  app: AppContext,
  deps: { outbox: Outbox; sources: Sources; prepare: RecipientStep; concurrency: number },
) {
  const { clock } = app
  const { outbox, sources, prepare, concurrency } = deps
  const writeOutcomes = createOutcomeWriter(app, outbox, sources)

  return async function processBatch(rows: MessageRow[]): Promise<void> {
    const now = clock.now()
    const slice = createSlice()
    const byId = new Map(
      outbox.contactsByIds([...new Set(rows.map((r) => r.contactId))]).map((c) => [c.id, c]),
    )
    const plansOf = new Map<MessageSource, Map<string, SendPlan | Error>>()
    // Outcomes are written in groups as sends complete, not once per batch: a kill then leaves
    // only the last few sends unrecorded (to be sent again with the same Message-ID).
    let unwritten: Finished[] = []
    let lastFailure: string | null = null
    let since = performance.now()
    const flush = () => {
      if (unwritten.length > 0) writeOutcomes(unwritten)
      unwritten = []
      since = performance.now()
    }
    const finish = (f: Finished) => {
      if (f.outcome.kind === 'failed') lastFailure = f.outcome.error
      unwritten.push(f)
      if (unwritten.length >= FLUSH_MAX || performance.now() - since >= FLUSH_MS) flush()
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
      const key = source.planKey(m)
      let plan = plans.get(key)
      if (!plan) {
        plan = source.plan(m)
        plans.set(key, plan)
      }
      if (plan instanceof Error) {
        finish({ message: m, outcome: source.unplannable(m, plan, now) })
        continue
      }
      const step = prepare(m, source, plan, byId.get(m.contactId), now)
      if (typeof step === 'function') pending.push({ message: m, channel: plan.channel, run: step })
      else finish({ message: m, outcome: step })
    }
    flush()
    // Each channel's sends run concurrently up to HERALD_SEND_CONCURRENCY; channels in parallel.
    const channels = [...new Set(pending.map((p) => p.channel))]
    await Promise.all(
      channels.map(async (channel) => {
        const queue = pending.filter((p) => p.channel === channel)
        let next = 0
        await Promise.all(
          Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
            while (next < queue.length) {
              const p = queue[next++]!
              finish({ message: p.message, outcome: await p.run() })
              if (slice.spent()) await slice.next()
            }
          }),
        )
      }),
    )
    flush()
    for (const [source, plans] of plansOf) source.afterBatch?.({ plans, lastFailure })
  }
}
