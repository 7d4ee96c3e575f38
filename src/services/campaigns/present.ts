import type { CampaignRow } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'
import { presentAbTest, presentAbTestState } from './ab-test'
import type { CampaignDeferral } from './deferred'

/** `deferred`: what of it a sending limit holds back (deferred.ts), null when nothing waits. */
export function presentCampaign(row: CampaignRow, deferred: CampaignDeferral | null) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    status: row.status,
    subject: row.subject,
    channel: row.channel,
    template_id: row.templateId,
    list_id: row.listId,
    segment_id: row.segmentId,
    sender_id: row.senderId,
    body_html: row.bodyHtml,
    body_text: row.bodyText,
    scheduled_at: isoOrNull(row.scheduledAt),
    send_at_local: row.sendAtLocal,
    variants: row.variants,
    ab_test: presentAbTest(row),
    ab_test_state: presentAbTestState(row),
    total_recipients: row.totalRecipients,
    total_sent: row.launchedAt === null ? null : row.sent,
    skipped: row.skipped,
    failure_reason: row.failureReason,
    deferred,
    launched_at: isoOrNull(row.launchedAt),
    completed_at: isoOrNull(row.completedAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

/** Stats from the counters kept with the events; rates are fractions of delivered. */
export function presentStats(row: CampaignRow) {
  const rate = (n: number) => (row.delivered > 0 ? Math.round((n / row.delivered) * 10_000) / 10_000 : 0)
  return {
    campaign_id: row.id,
    status: row.status,
    total_recipients: row.totalRecipients ?? 0,
    sent: row.sent,
    delivered: row.delivered,
    opened: row.opened,
    clicked: row.clicked,
    replied: row.replied,
    bounced: row.bounced,
    unsubscribed: row.unsubscribed,
    skipped: row.skipped,
    failed: row.failed,
    machine_opened: row.machineOpened,
    open_rate: rate(row.opened),
    click_rate: rate(row.clicked),
  }
}
