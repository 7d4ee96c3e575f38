import { inArray } from 'drizzle-orm'
import { type Channel, type ChannelProvider, ProviderError } from '../channels/types'
import { type AppContext, appOf } from '../context'
import { type ContactRow, contacts, type MessageRow, messages } from '../db/schema'
import { snapshotChunk } from '../services/campaigns/audience'
import { completeIfDone } from '../services/campaigns/complete'
import { failCampaign } from '../services/campaigns/launch'
import { createSuppressionCheck } from '../services/suppressions/manage'
import { composeMessage } from './compose'
import { registerSenderKick, unregisterSenderKick } from './kick'
import { createOutcomeWriter, type Finished, type Outcome } from './outcome'
import { createPlanCache, type SendPlan } from './plan'
import { createRateBucket, createWindowLimits } from './throttle'

// The send worker (DESIGN.md §8). The outbox is the truth: each pass copies a chunk of every
// launching campaign's audience, claims due messages of sending campaigns with a lease, checks
// each recipient at send time, sends through the channel's provider with bounded concurrency,
// and writes each outcome with its event and counters in one transaction (grouped every 25 ms).
// A crash leaves at most the sends of the last moments unrecorded; on start what was claimed is
// queued again and resent with the same Message-ID.

export interface SendWorkerOptions {
  providers: Record<Channel, ChannelProvider>
  /** Messages claimed per pass, shared fairly between sending campaigns. */
  batchSize?: number
  /** How often to look for work when nothing kicked the worker. */
  pollMs?: number
  /** How long a claim holds before another pass may take the message again. */
  leaseMs?: number
  /** Delays before each retry of a retryable failure; one more failure fails the message. */
  retryDelays?: readonly number[]
}

export interface SendWorker {
  kick(): void
  stop(): Promise<void>
}

export const DEFAULT_RETRY_DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000] as const
/** A campaign whose first this-many messages all failed permanently is failed as a whole. */
const REFUSED_EVERYTHING = 25
/**
 * Outcomes are written every FLUSH_MS of sending (at most FLUSH_MAX at once): a crash leaves
 * ~25 ms of sends unrecorded whatever the speed, and fast providers still commit in groups
 * (a commit rewrites the touched index pages, so one per message would halve throughput).
 */
const FLUSH_MS = 25
const FLUSH_MAX = 256
/** How often an idle worker (no campaign sending) looks for work it was not told about. */
const IDLE_POLL_MS = 1_000
/** How long the messages of a suspended client wait before they look again. */
const SUSPENDED_RECHECK_MS = 30_000

export function startSendWorker(ctx: AppContext, options: SendWorkerOptions): SendWorker {
  const app = appOf(ctx)
  const { sqlite, clock, log } = app
  // Under HERALD_SEND_RATE a batch is at most one second's worth, so a pause takes hold in a second.
  const batchSize = Math.min(options.batchSize ?? 250, app.config.sendRate ?? Number.POSITIVE_INFINITY)
  const pollMs = options.pollMs ?? 100
  const leaseMs = options.leaseMs ?? 5 * 60_000
  const retryDelays = options.retryDelays ?? DEFAULT_RETRY_DELAYS
  const concurrency = app.config.sendConcurrency

  // Messages a stopped or killed process held are due again, with the same Message-ID; those of
  // a campaign that was cancelled or failed meanwhile will never be sent.
  sqlite
    .query(
      `UPDATE messages SET status = CASE
         WHEN campaign_id IN (SELECT id FROM campaigns WHERE status IN ('cancelled', 'failed')) THEN 'cancelled'
         ELSE 'queued' END,
       next_attempt_at = ?1 WHERE status = 'sending'`,
    )
    .run(clock.now())

  const sendingCampaigns = sqlite.query<{ id: string; snapshot_done: number }, []>(
    "SELECT id, snapshot_done FROM campaigns WHERE status = 'sending' ORDER BY id",
  )
  // The audience copy goes on while a campaign is paused: the snapshot is of the launch, not of
  // whenever it resumes.
  const pausedCopies = sqlite.query<{ id: string }, []>(
    "SELECT id FROM campaigns WHERE status = 'paused' AND snapshot_done = 0 AND launched_at IS NOT NULL ORDER BY id",
  )
  const claim = sqlite.query<{ seq: number }, [number, string, number, number]>(
    `UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
     WHERE seq IN (
       SELECT seq FROM messages WHERE campaign_id = ?2 AND status = 'queued' AND next_attempt_at <= ?3
       ORDER BY seq LIMIT ?4
     ) RETURNING seq`,
  )
  const expireLeases = sqlite.query(
    "UPDATE messages SET status = 'queued' WHERE status = 'sending' AND next_attempt_at <= ?1",
  )
  const campaignStatus = sqlite.query<{ status: string }, [string]>(
    'SELECT status FROM campaigns WHERE id = ?1',
  )
  const refusedCheck = sqlite.query<{ failed: number; sent: number; status: string }, [string]>(
    'SELECT failed, sent, status FROM campaigns WHERE id = ?1',
  )

  // A copy that cannot go on (its list was deleted while the campaign was paused) stops being
  // retried; launching the campaign again fails it with the reason.
  const failedCopies = new Set<string>()
  const markSnapshotFailed = (id: string) => failedCopies.add(id)

  const plans = createPlanCache(app)
  const writeOutcomes = createOutcomeWriter(app)
  const isSuppressed = createSuppressionCheck(app.db)
  const bucket = createRateBucket(app.config.sendRate, () => clock.now())
  const limits = createWindowLimits(app)

  let stopped = false
  let wake: (() => void) | null = null
  let kicked = false
  const kick = () => {
    kicked = true
    const w = wake
    wake = null
    w?.()
  }
  registerSenderKick(app, kick)

  /** What to do with one claimed message before anything is sent. */
  function prepare(
    m: MessageRow,
    plan: SendPlan,
    contact: ContactRow | undefined,
    now: number,
  ): Outcome | (() => Promise<Outcome>) {
    const c = plan.campaign
    if (c.status === 'paused') return { kind: 'deferred', at: now }
    if (c.status !== 'sending') return { kind: 'cancelled', reason: `campaign ${c.status}` }
    if (plan.clientSuspended) return { kind: 'deferred', at: now + SUSPENDED_RECHECK_MS }
    if (!contact) return { kind: 'skipped', reason: 'contact_erased' }
    if (contact.status !== 'subscribed') return { kind: 'skipped', reason: `contact_${contact.status}` }
    if (c.channel === 'email' && isSuppressed(m.clientId, contact.email))
      return { kind: 'skipped', reason: 'suppressed' }
    if (c.channel !== 'email' && !contact.phone) return { kind: 'skipped', reason: 'no_phone' }
    const to = c.channel === 'email' ? contact.email : contact.phone!
    const deferTo = limits.reserve(m.clientId, to, now)
    if (deferTo !== null) return { kind: 'deferred', at: deferTo }
    const provider = options.providers[c.channel]
    // Rendering happens in the send task, not for the whole batch up front: the event loop then
    // interleaves it with the provider's I/O instead of stalling every connection per batch.
    return async () => {
      await bucket.take()
      // Paused or cancelled while this message waited for its turn: do not send it.
      const status = campaignStatus.get(c.id)?.status
      if (status === 'paused') return { kind: 'deferred', at: clock.now() }
      if (status !== 'sending') return { kind: 'cancelled', reason: `campaign ${status}` }
      let composed: ReturnType<typeof composeMessage>
      try {
        composed = composeMessage(app, plans.key, plan, m, contact)
      } catch (err) {
        return { kind: 'failed', provider: null, error: `render failed: ${(err as Error).message}` }
      }
      try {
        const r = await provider.send(composed.outgoing)
        return {
          kind: 'sent',
          delivered: r.delivered,
          provider: provider.name,
          providerMessageId: r.providerMessageId,
          composed,
          keepContent: provider.name === 'capture' || provider.name === 'simulator',
        }
      } catch (err) {
        const retryable = !(err instanceof ProviderError) || err.retryable
        const error = (err as Error).message || String(err)
        const delay = retryDelays[m.attempts - 1]
        if (retryable && delay !== undefined)
          return { kind: 'retry', provider: provider.name, error, at: clock.now() + delay }
        return { kind: 'failed', provider: provider.name, error }
      }
    }
  }

  async function processBatch(rows: MessageRow[]): Promise<void> {
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

  /** Whether any campaign was sending at the last pass (when none is, only a kick brings work). */
  let anySending = false

  async function pass(): Promise<boolean> {
    const now = clock.now()
    const active = sendingCampaigns.all()
    const copying = [
      ...active.filter((c) => !c.snapshot_done),
      ...pausedCopies.all().filter((c) => !failedCopies.has(c.id)),
    ]
    anySending = active.length > 0 || copying.length > 0
    if (!anySending) return false
    let worked = false
    for (const c of copying) {
      try {
        snapshotChunk(app, c.id)
      } catch (err) {
        // A paused campaign stays paused (and says why when it is resumed and fails then).
        failCampaign(app, c.id, `the audience could not be read: ${(err as Error).message}`)
        markSnapshotFailed(c.id)
      }
      worked = true
    }
    expireLeases.run(now)
    const share = Math.max(1, Math.ceil(batchSize / active.length))
    const claimed: number[] = []
    for (const c of active) for (const r of claim.all(now + leaseMs, c.id, now, share)) claimed.push(r.seq)
    if (claimed.length > 0) {
      await processBatch(
        app.db.select().from(messages).where(inArray(messages.seq, claimed)).orderBy(messages.seq).all(),
      )
      worked = true
    }
    for (const c of active) if (completeIfDone(app, c.id)) worked = true
    return worked
  }

  const loop = (async () => {
    while (!stopped) {
      let worked = false
      try {
        worked = await pass()
      } catch (err) {
        log.error('send worker pass failed', { error: String((err as Error)?.stack ?? err) })
        await Bun.sleep(1_000)
      }
      // Yield to the event loop after every pass: with an instant provider (capture) the pass
      // only awaits settled promises, and HTTP requests and timers would wait for the whole send.
      if (worked) await new Promise<void>((resolve) => setImmediate(resolve))
      if (!worked && !stopped && !kicked) {
        await new Promise<void>((resolve) => {
          wake = resolve
          // Launches, resumes and scheduled starts kick the worker; the timeout is a safety net
          // (idle) or the wait for retries and throttled messages to come due (sending).
          setTimeout(
            () => {
              if (wake === resolve) wake = null
              resolve()
            },
            anySending ? pollMs : IDLE_POLL_MS,
          )
        })
      }
      kicked = false
    }
  })()

  return {
    kick,
    async stop() {
      stopped = true
      kick()
      await loop
      unregisterSenderKick(app)
    },
  }
}
