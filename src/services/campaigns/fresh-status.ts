import type { Outbox } from '../../db/outbox'

// A sending campaign's status as its next send sees it ("paused meanwhile?"). Each campaign's is
// read again at most every FRESH_MS, by one read however many sends ask: a read per send was a
// round trip before every message on PostgreSQL. A change this process makes (pause, cancel,
// resume, fail) is read again at every ask for CHANGING_MS, time for its transaction to commit,
// so it holds for the next send; another process's change is seen within FRESH_MS, well within
// the second a pause may take.

const FRESH_MS = 100
const CHANGING_MS = 1000
/** Campaigns remembered at most; past it the memory starts again (a read each, once). */
const MAX_KEPT = 10_000

interface Read {
  status: Promise<string | null>
  at: number
}

export interface CampaignStatuses {
  /** The campaign's status, read at most FRESH_MS ago (and after any change noted here). */
  fresh(campaignId: string): Promise<string | null>
  /** This process is changing the campaign's status: the next sends read it from the store. */
  changing(campaignId: string): void
}

const byOutbox = new WeakMap<Outbox, CampaignStatuses>()

/** The statuses read through `outbox`, one memory per store (the send worker's and the verbs'). */
export function campaignStatuses(outbox: Outbox): CampaignStatuses {
  let statuses = byOutbox.get(outbox)
  if (!statuses) {
    statuses = createCampaignStatuses((id) => outbox.campaignStatus(id))
    byOutbox.set(outbox, statuses)
  }
  return statuses
}

export function createCampaignStatuses(
  read: (campaignId: string) => Promise<string | null>,
  now: () => number = () => performance.now(),
): CampaignStatuses {
  const reads = new Map<string, Read>()
  const changingUntil = new Map<string, number>()
  return {
    async fresh(campaignId) {
      const t = now()
      const until = changingUntil.get(campaignId)
      if (until !== undefined && until <= t) changingUntil.delete(campaignId)
      const last = reads.get(campaignId)
      if (last && t - last.at < FRESH_MS && !(until !== undefined && until > t)) return await last.status
      if (reads.size >= MAX_KEPT) reads.clear()
      const status = read(campaignId)
      reads.set(campaignId, { status, at: t })
      try {
        return await status
      } catch (err) {
        // A failed read is not remembered: the next send asks again.
        if (reads.get(campaignId)?.status === status) reads.delete(campaignId)
        throw err
      }
    },
    changing(campaignId) {
      reads.delete(campaignId)
      if (changingUntil.size >= MAX_KEPT) changingUntil.clear()
      changingUntil.set(campaignId, now() + CHANGING_MS)
    },
  }
}
