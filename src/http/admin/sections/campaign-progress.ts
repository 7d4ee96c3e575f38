// A campaign's progress from its maintained counters (sent, skipped, failed of total_recipients):
// shared by the dashboard's running campaigns and the campaign page's polled bar. `held` says
// what a sending limit holds back, in words.

export interface CampaignLike {
  id: string
  name: string
  status: string
  total_recipients: number | null
  total_sent: number | null
  skipped: number
  deferred: { count: number; reason: 'warmup' | 'throttle' | 'hourly_cap'; until: string } | null
}

/** The limit as the sentence "Held back by …" names it. */
export const HELD_BY = {
  warmup: 'warm-up',
  throttle: 'a per-domain throttle',
  hourly_cap: 'the hourly sending cap',
} as const

export function campaignProgress(c: CampaignLike, failed = 0) {
  const total = c.total_recipients ?? 0
  const done = Math.min(total, (c.total_sent ?? 0) + c.skipped + failed)
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    total,
    done,
    remaining: c.status === 'sending' || c.status === 'paused' ? Math.max(0, total - done) : 0,
    percent: total > 0 ? Math.floor((done / total) * 100) : c.status === 'sent' ? 100 : 0,
    live: c.status === 'sending' || c.status === 'scheduled',
    held: c.deferred ? { ...c.deferred, by: HELD_BY[c.deferred.reason] } : null,
  }
}
