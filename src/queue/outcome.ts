import type { AppContext } from '../context'
import type { MessageRow } from '../db/schema'
import { recordEvent } from '../services/events/record'
import { deliveredData } from '../services/messages/activity'
import { bumpCampaign, type CampaignCounter } from '../services/messages/counters'
import type { Composed } from './compose'

// How a claimed message ended this attempt. A batch's outcomes, their events and the campaign
// counters are written in one transaction: after a crash a message is either recorded with
// all its consequences or still claimed, and then sent again with the same Message-ID.

export type Outcome =
  | {
      kind: 'sent'
      delivered: boolean
      provider: string
      providerMessageId: string | null
      composed: Composed
      keepContent: boolean
    }
  | { kind: 'retry'; provider: string; error: string; at: number }
  | { kind: 'failed'; provider: string | null; error: string }
  | { kind: 'skipped'; reason: string }
  /** Not attempted (throttle, cap, campaign paused): back in the queue, attempt not counted. */
  | { kind: 'deferred'; at: number }
  /** Its campaign was cancelled or failed after the claim. */
  | { kind: 'cancelled'; reason: string | null }

export interface Finished {
  message: MessageRow
  outcome: Outcome
}

export function createOutcomeWriter(app: AppContext) {
  const q = {
    sent: app.sqlite.query(
      `UPDATE messages SET status = ?2, provider = ?3, provider_message_id = ?4, sent_at = ?5,
         delivered_at = ?6, error = NULL WHERE seq = ?1`,
    ),
    content: app.sqlite.query(
      `INSERT OR REPLACE INTO message_contents (message_seq, subject, body_html, body_text, headers)
       VALUES (?1, ?2, ?3, ?4, ?5)`,
    ),
    // A message coming back to the queue after its campaign was cancelled or failed (it was in
    // flight then) is cancelled instead: nothing would ever claim it again.
    retry: app.sqlite.query(
      `UPDATE messages SET provider = ?2, error = ?3, next_attempt_at = ?4, status = CASE
         WHEN (SELECT status FROM campaigns WHERE id = messages.campaign_id) IN ('cancelled', 'failed')
         THEN 'cancelled' ELSE 'queued' END
       WHERE seq = ?1`,
    ),
    failed: app.sqlite.query(
      "UPDATE messages SET status = 'failed', provider = ?2, error = ?3 WHERE seq = ?1",
    ),
    cancelled: app.sqlite.query("UPDATE messages SET status = 'cancelled', error = ?2 WHERE seq = ?1"),
    skipped: app.sqlite.query("UPDATE messages SET status = 'skipped', skip_reason = ?2 WHERE seq = ?1"),
    deferred: app.sqlite.query(
      `UPDATE messages SET attempts = max(attempts - 1, 0), next_attempt_at = ?2, status = CASE
         WHEN (SELECT status FROM campaigns WHERE id = messages.campaign_id) IN ('cancelled', 'failed')
         THEN 'cancelled' ELSE 'queued' END
       WHERE seq = ?1`,
    ),
  }

  return function writeOutcomes(batch: readonly Finished[]): void {
    const now = app.clock.now()
    const counters = new Map<string, Partial<Record<CampaignCounter, number>>>()
    const count = (m: MessageRow, c: CampaignCounter) => {
      if (!m.campaignId) return
      const d = counters.get(m.campaignId) ?? {}
      d[c] = (d[c] ?? 0) + 1
      counters.set(m.campaignId, d)
    }
    app.sqlite.transaction(() => {
      for (const { message: m, outcome: o } of batch) {
        switch (o.kind) {
          case 'sent': {
            const status = o.delivered ? 'delivered' : 'sent'
            q.sent.run(m.seq, status, o.provider, o.providerMessageId, now, o.delivered ? now : null)
            const r = o.composed.rendered
            q.content.run(
              m.seq,
              r.subject,
              o.keepContent ? r.body_html : null,
              o.keepContent ? r.body_text : null,
              JSON.stringify(storedHeaders(o.composed)),
            )
            count(m, 'sent')
            if (o.delivered) {
              count(m, 'delivered')
              recordEvent(app.db, {
                clientId: m.clientId,
                type: 'email.delivered',
                contactId: m.contactId,
                messageId: m.id,
                campaignId: m.campaignId,
                journeyId: m.journeyId,
                sequenceId: m.sequenceId,
                occurredAt: now,
                data: deliveredData(app, m, now, o.composed.email),
              })
            }
            break
          }
          case 'retry':
            q.retry.run(m.seq, o.provider, o.error, o.at)
            break
          case 'failed':
            q.failed.run(m.seq, o.provider, o.error)
            count(m, 'failed')
            break
          case 'skipped':
            q.skipped.run(m.seq, o.reason)
            count(m, 'skipped')
            break
          case 'deferred':
            q.deferred.run(m.seq, o.at)
            break
          case 'cancelled':
            q.cancelled.run(m.seq, o.reason)
            break
        }
      }
      for (const [campaignId, deltas] of counters) bumpCampaign(app.db, campaignId, deltas)
    })()
  }
}

/** The headers a reader of GET /messages/{id} wants to see, lower-case names. */
function storedHeaders({ outgoing, headers }: Composed): Record<string, string> {
  const out: Record<string, string> = { 'message-id': outgoing.messageId, to: outgoing.to }
  if (outgoing.channel === 'email') {
    out.from = outgoing.from.name ? `"${outgoing.from.name}" <${outgoing.from.email}>` : outgoing.from.email
    out.subject = outgoing.subject
    if (outgoing.replyTo) out['reply-to'] = outgoing.replyTo
    out['return-path'] = `<${outgoing.envelopeFrom}>`
  }
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v
  return out
}
