import type { AppContext } from '../context'
import { batchedEvents } from '../db/events'
import type { Outbox } from '../db/outbox'
import type { ContentRow, SentRow } from '../db/outbox-insert'
import { createRollupBatch } from '../db/rollups'
import type { MessageRow } from '../db/schema'
import { inTransaction } from '../db/transaction'
import type { CampaignCounter } from '../services/messages/counters'
import type { Composed } from './compose'
import type { SendDeps } from './deps'
import type { Finished } from './outcome'
import type { Sources } from './sources'
import type { MessageSource } from './sources/types'

// A batch's outcomes (each a status transition of src/db/outbox.ts), their events and their
// sources' counters are written in one transaction: after a crash a message is either recorded
// with all its consequences or still claimed, and then sent again with the same Message-ID.

export function createOutcomeWriter(
  app: AppContext,
  outbox: Outbox,
  sources: Sources,
  recordDelivered: SendDeps['recordDelivered'],
) {
  return async function writeOutcomes(batch: readonly Finished[]): Promise<void> {
    const now = app.clock.now()
    // Counters are summed per source and key (a campaign) and added once per group.
    const tallies = new Map<MessageSource, Map<string, Partial<Record<CampaignCounter, number>>>>()
    const count = (m: MessageRow, c: CampaignCounter) => {
      const source = sources.of(m)
      const key = source.tallyKey(m)
      if (key === null) return
      let byKey = tallies.get(source)
      if (!byKey) {
        byKey = new Map()
        tallies.set(source, byKey)
      }
      const d = byKey.get(key) ?? {}
      d[c] = (d[c] ?? 0) + 1
      byKey.set(key, d)
    }
    // Analytics rollups: summed per source and quarter-hour, one upsert each per batch.
    const rollups = createRollupBatch()
    // The batch's sends, and their contents, are written a statement per batch where the store
    // can (a round trip per message bounds PostgreSQL); each one's consequences follow in order.
    const sent: SentRow[] = []
    const contents: ContentRow[] = []
    for (const { message: m, outcome: o } of batch) {
      if (o.kind !== 'sent') continue
      sent.push({
        seq: m.seq,
        lease: m.nextAttemptAt,
        provider: o.provider,
        providerMessageId: o.providerMessageId,
        delivered: o.delivered,
      })
      const r = o.composed.rendered
      contents.push({
        seq: m.seq,
        subject: r.subject,
        html: o.keepContent ? r.body_html : null,
        text: o.keepContent ? r.body_text : null,
        headers: storedHeaders(o.composed),
      })
    }
    // Outcomes of sends whose lease ran out and was claimed again meanwhile (a process that
    // stalled): the other claim's outcome stands, so these write and count nothing.
    const stale = new Set<number>()
    await inTransaction(app.sqlite, async () => {
      stale.clear()
      await batchedEvents(app.db, async () => {
        const { written, nowDelivered } = await outbox.sentMany(sent, now)
        await outbox.storeContents(contents.filter((c) => written.has(c.seq)))
        for (const { message: m, outcome: o } of batch) {
          const lease = m.nextAttemptAt
          switch (o.kind) {
            case 'sent':
              if (!written.has(m.seq)) {
                stale.add(m.seq)
                break
              }
              count(m, 'sent')
              rollups.add(m, now, 'sent')
              if (nowDelivered.has(m.seq)) {
                count(m, 'delivered')
                rollups.add(m, now, 'delivered')
                await recordDelivered(app, m, now, o.composed.email)
              }
              break
            case 'retry':
              if (!(await outbox.retry(m.seq, lease, o.provider, o.error, o.at))) stale.add(m.seq)
              break
            case 'failed':
              if (await outbox.failed(m.seq, lease, o.provider, o.error)) count(m, 'failed')
              else stale.add(m.seq)
              break
            case 'skipped':
              if (await outbox.skipped(m.seq, lease, o.reason)) count(m, 'skipped')
              else stale.add(m.seq)
              break
            case 'deferred':
              if (!(await outbox.deferred(m.seq, lease, o.at, o.reason ?? null))) stale.add(m.seq)
              break
            case 'cancelled':
              if (!(await outbox.cancelled(m.seq, lease, o.reason))) stale.add(m.seq)
              break
            case 'abandoned':
              break
          }
        }
      })
      for (const [source, byKey] of tallies)
        for (const [key, deltas] of byKey) await source.tally(key, deltas)
      await rollups.flush(app.sqlite)
    })
    // Counted once committed: a batch that failed to write is written (and counted) again.
    for (const { message: m, outcome: o } of batch)
      if (o.kind !== 'abandoned' && !stale.has(m.seq))
        app.metrics.countMessage(sources.of(m).kind, m.channel, o.kind)
  }
}

export type OutcomeWriter = ReturnType<typeof createOutcomeWriter>

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
