import type { Channel, ChannelProvider } from '../channels/types'
import type { AppContext } from '../context'
import { outboxOf } from '../db/outbox'
import { OUTBOX_RULES } from '../services/campaigns/states'
import { trackingKeyOf } from '../services/tracking/resolve'
import { createBatchProcessor } from './batch'
import { createLeasedWorker, type LeasedWorker, type PassResult } from './leased-worker'
import { createPlanner } from './plan'
import { createRecipientStep } from './recipient'
import { sourcesOf } from './sources'
import { createCampaignSource } from './sources/campaign'
import { createTransactionalSource } from './sources/transactional'

// The send worker (DESIGN.md §8). The outbox is the truth: each pass lets every source do its
// preparatory work (a launching campaign's audience copy), claims due messages with a lease,
// shared fairly between the sources' lanes (each sending campaign, the transactional queue),
// checks each message at send time, sends through the channel's provider with bounded
// concurrency, and writes each outcome with its event and counters in one transaction (grouped
// every 25 ms). A crash leaves at most the sends of the last moments unrecorded; on start what
// was claimed is queued again and resent with the same Message-ID.

export interface SendWorkerOptions {
  providers: Record<Channel, ChannelProvider>
  /** Messages claimed per pass, shared fairly between the sources' lanes. */
  batchSize?: number
  /** How often to look for work while something is sending. */
  pollMs?: number
  /** How long a claim holds before another pass may take the message again. */
  leaseMs?: number
  /** Delays before each retry of a retryable failure; one more failure fails the message. */
  retryDelays?: readonly number[]
}

export const DEFAULT_RETRY_DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000] as const
/** How often an idle worker (nothing sending) looks for work it was not told about. */
const IDLE_POLL_MS = 1_000

export function createSendWorker(app: AppContext, options: SendWorkerOptions): LeasedWorker {
  const { clock } = app
  // Under HERALD_SEND_RATE a batch is at most one second's worth, so a pause takes hold in a second.
  const batchSize = Math.min(options.batchSize ?? 250, app.config.sendRate ?? Number.POSITIVE_INFINITY)
  const pollMs = options.pollMs ?? 100
  const leaseMs = options.leaseMs ?? 5 * 60_000
  const retryDelays = options.retryDelays ?? DEFAULT_RETRY_DELAYS
  const concurrency = app.config.sendConcurrency

  const outbox = outboxOf(app.store, OUTBOX_RULES)
  const planner = createPlanner(app, outbox, (channel) => options.providers[channel].capabilities)
  const sources = sourcesOf([
    createCampaignSource(app, outbox, planner),
    createTransactionalSource(app, outbox, planner),
  ])
  const prepare = createRecipientStep(app, {
    providers: options.providers,
    retryDelays,
    key: trackingKeyOf(app),
    outbox,
  })
  const processBatch = createBatchProcessor(app, { outbox, sources, prepare, concurrency })

  async function pass(): Promise<PassResult> {
    let worked = false
    for (const source of sources.all) if (source.beforeClaim?.(clock.now())) worked = true
    // Read after the audience copy: what it queued this pass is due in this pass.
    const now = clock.now()
    outbox.expireLeases(now)
    let nextAt: number | null = null
    const lanes = sources.all.flatMap((source) => {
      const due = source.due(now)
      if (due.nextAt !== null) nextAt = nextAt === null ? due.nextAt : Math.min(nextAt, due.nextAt)
      return due.lanes.map((lane) => ({ source, lane }))
    })
    if (lanes.length > 0) {
      const share = Math.max(1, Math.ceil(batchSize / lanes.length))
      const claimed: number[] = []
      for (const { source, lane } of lanes) claimed.push(...source.claim(lane, now, now + leaseMs, share))
      if (claimed.length > 0) {
        await processBatch(outbox.claimedRows(claimed))
        worked = true
      }
    }
    for (const source of sources.all) if (source.afterPass?.(now)) worked = true
    if (worked) return { worked }
    // Retries and throttled messages come due by themselves: look again then, at most every pollMs.
    return { worked, nextAt: nextAt === null ? null : Math.max(nextAt, now + pollMs) }
  }

  return createLeasedWorker(app, {
    name: 'send',
    // Messages a stopped or killed process held are due again, with the same Message-ID; those of
    // a campaign that was cancelled or failed meanwhile will never be sent.
    recover: () => outbox.requeueInflight(clock.now()),
    pass,
    idleMs: IDLE_POLL_MS,
  })
}

/** The send worker, started (tests that do not drive it pass by pass). */
export const startSendWorker = (app: AppContext, options: SendWorkerOptions) =>
  createSendWorker(app, options).start()
