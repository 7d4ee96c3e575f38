// A campaign's progress from its maintained counters (sent, skipped, failed of total_recipients):
// shared by the dashboard's running campaigns and the campaign page's polled bar.

export interface CampaignLike {
  id: string
  name: string
  status: string
  total_recipients: number | null
  total_sent: number | null
  skipped: number
}

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
  }
}
