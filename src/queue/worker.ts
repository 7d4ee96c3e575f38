import { inArray } from 'drizzle-orm'
import type { Channel, ChannelProvider } from '../channels/types'
import type { AppContext } from '../context'
import { messages } from '../db/schema'
import { snapshotChunk } from '../services/campaigns/audience'
import { completeIfDone } from '../services/campaigns/complete'
import { failCampaign } from '../services/campaigns/launch'
import { createBatchProcessor } from './batch'
import { createLeasedWorker, type LeasedWorker, type PassResult } from './leased-worker'
import { createPlanCache } from './plan'
import { createRecipientStep } from './recipient'

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

export const DEFAULT_RETRY_DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000] as const
/** How often an idle worker (no campaign sending) looks for work it was not told about. */
const IDLE_POLL_MS = 1_000

export function createSendWorker(app: AppContext, options: SendWorkerOptions): LeasedWorker {
  const { sqlite, clock, log } = app
  // Under HERALD_SEND_RATE a batch is at most one second's worth, so a pause takes hold in a second.
  const batchSize = Math.min(options.batchSize ?? 250, app.config.sendRate ?? Number.POSITIVE_INFINITY)
  const pollMs = options.pollMs ?? 100
  const leaseMs = options.leaseMs ?? 5 * 60_000
  const retryDelays = options.retryDelays ?? DEFAULT_RETRY_DELAYS
  const concurrency = app.config.sendConcurrency

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

  // A copy that cannot go on (its list was deleted while the campaign was paused) stops being
  // retried; launching the campaign again fails it with the reason.
  const failedCopies = new Set<string>()
  const markSnapshotFailed = (id: string) => failedCopies.add(id)

  const plans = createPlanCache(app)

  const prepare = createRecipientStep(app, { providers: options.providers, retryDelays, key: plans.key })
  const processBatch = createBatchProcessor(app, { plans, prepare, concurrency })

  async function pass(): Promise<PassResult> {
    const now = clock.now()
    const active = sendingCampaigns.all()
    const copying = [
      ...active.filter((c) => !c.snapshot_done),
      ...pausedCopies.all().filter((c) => !failedCopies.has(c.id)),
    ]
    // Nothing sending: only a launch, a resume or a scheduled start (each kicks) brings work.
    if (active.length === 0 && copying.length === 0) return { worked: false }
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
    // Retries and throttled messages come due by themselves: look again soon while sending.
    return { worked, nextAt: worked ? null : now + pollMs }
  }

  return createLeasedWorker(app, {
    name: 'send',
    recover() {
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
    },
    pass,
    idleMs: IDLE_POLL_MS,
  })
}

/** The send worker, started (tests that do not drive it pass by pass). */
export const startSendWorker = (app: AppContext, options: SendWorkerOptions) =>
  createSendWorker(app, options).start()
