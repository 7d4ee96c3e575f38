import { inArray } from 'drizzle-orm'
import type { Channel } from '../channels/types'
import type { AppContext } from '../context'
import { contacts, type MessageRow } from '../db/schema'
import { failCampaign } from '../services/campaigns/launch'
import { createOutcomeWriter, type Finished, type Outcome } from './outcome'
import type { PlanCache, SendPlan } from './plan'
import type { RecipientStep } from './recipient'

// One claimed batch: each message checked, then sent with bounded concurrency per channel, and
// the outcomes written as they come. Afterwards a campaign that cannot send, or whose provider
// refused everything so far, fails.

/** A campaign whose first this-many messages all failed permanently is failed as a whole. */
const REFUSED_EVERYTHING = 25
/**
 * Outcomes are written every FLUSH_MS of sending (at most FLUSH_MAX at once): a crash leaves
 * ~25 ms of sends unrecorded whatever the speed, and fast providers still commit in groups
 * (a commit rewrites the touched index pages, so one per message would halve throughput).
 */
const FLUSH_MS = 25
const FLUSH_MAX = 256

export function createBatchProcessor(
  app: AppContext,
  deps: { plans: PlanCache; prepare: RecipientStep; concurrency: number },
) {
  const { clock } = app
  const { plans, prepare, concurrency } = deps
  const writeOutcomes = createOutcomeWriter(app)
  const refusedCheck = app.sqlite.query<{ failed: number; sent: number; status: string }, [string]>(
    'SELECT failed, sent, status FROM campaigns WHERE id = ?1',
  )

  return async function processBatch(rows: MessageRow[]): Promise<void> {
    const now = clock.now()
    const ids = [...new Set(rows.map((r) => r.contactId))]
    const byId = new Map(
      app.db
        .select()
        .from(contacts)
        .where(inArray(contacts.id, ids))
        .all()
        .map((c) => [c.id, c]),
    )
    const planOf = new Map<string, SendPlan | Error>()
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
      let plan = planOf.get(m.campaignId!)
      if (!plan) {
        plan = plans.get(m.campaignId!)
        planOf.set(m.campaignId!, plan)
      }
      if (plan instanceof Error) {
        finish({ message: m, outcome: { kind: 'deferred', at: now } })
        continue
      }
      const step = prepare(m, plan, byId.get(m.contactId), now)
      if (typeof step === 'function') pending.push({ message: m, channel: plan.campaign.channel, run: step })
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
            }
          }),
        )
      }),
    )
    flush()
    for (const [campaignId, plan] of planOf) {
      if (plan instanceof Error) {
        plans.forget(campaignId)
        failCampaign(app, campaignId, `cannot send: ${plan.message}`)
        continue
      }
      const t = refusedCheck.get(campaignId)
      if (t && t.status === 'sending' && t.sent === 0 && t.failed >= REFUSED_EVERYTHING)
        failCampaign(
          app,
          campaignId,
          `the provider refused every message so far (${t.failed}); last error: ${lastFailure ?? 'unknown'}`,
        )
    }
  }
}
