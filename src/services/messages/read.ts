import { and, eq, inArray, type SQL } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { paginate } from '../../db/paginate'
import { type MessageRow, messageContents, messages } from '../../db/schema'
import { findVisible, listFilter } from '../../db/tenant'
import { notFound } from '../../errors'
import { iso, isoOrNull } from '../../lib/time'
import { idFilter } from '../id-filter'
import { flowRefsOf } from './flow-refs'
import type { ListMessagesQuery } from './inputs'

export function presentMessage(row: MessageRow, headers?: Record<string, string> | null) {
  const flow = flowRefsOf(row)
  return {
    id: row.id,
    client_id: row.clientId,
    campaign_id: row.campaignId,
    journey_id: flow.journeyId,
    sequence_id: flow.sequenceId,
    contact_id: row.contactId,
    channel: row.channel,
    to: row.to,
    status: row.status,
    skip_reason: row.skipReason,
    provider: row.provider,
    provider_message_id: row.providerMessageId,
    message_id: headers?.['message-id'] ?? null,
    error: row.error,
    attempts: row.attempts,
    created_at: iso(row.createdAt),
    sent_at: isoOrNull(row.sentAt),
    delivered_at: isoOrNull(row.deliveredAt),
    opened_at: isoOrNull(row.openedAt),
    clicked_at: isoOrNull(row.clickedAt),
    opens_count: row.opensCount,
    clicks_count: row.clicksCount,
  }
}

/** The outbox, newest first. Message-IDs come from the stored headers of what was sent. */
export async function listMessages(ctx: Ctx, page: ListMessagesQuery) {
  const campaignId = idFilter('campaign_id', 'campaign', page.campaign_id)
  const contactId = idFilter('contact_id', 'contact', page.contact_id)
  // A contact's messages are read through its index, the client only checked.
  const conditions: (SQL | undefined)[] = [
    listFilter(ctx.actor, messages.clientId, page.client_id, contactId !== undefined),
  ]
  if (campaignId) conditions.push(eq(messages.campaignId, campaignId))
  const journeyId = idFilter('journey_id', 'journey', page.journey_id)
  if (journeyId) conditions.push(eq(messages.sourceId, journeyId), eq(messages.sourceKind, 'journey'))
  const sequenceId = idFilter('sequence_id', 'sequence', page.sequence_id)
  if (sequenceId) conditions.push(eq(messages.sourceId, sequenceId), eq(messages.sourceKind, 'sequence'))
  if (contactId) conditions.push(eq(messages.contactId, contactId))
  if (page.status) conditions.push(eq(messages.status, page.status))
  const result = await paginate(
    ctx.db,
    ctx.secretKey,
    messages,
    messages.id,
    and(...conditions),
    page,
    (r) => r,
  )
  const headers = await headersOf(ctx, result.data)
  return {
    data: result.data.map((r) => presentMessage(r, headers.get(r.seq))),
    pagination: result.pagination,
  }
}

async function headersOf(ctx: Ctx, rows: MessageRow[]) {
  const out = new Map<number, Record<string, string>>()
  if (DIALECT === 'postgres') {
    // One query for the page (jsonb arrives decoded).
    if (rows.length === 0) return out
    const found = await ctx.db
      .select({ seq: messageContents.messageSeq, headers: messageContents.headers })
      .from(messageContents)
      .where(
        inArray(
          messageContents.messageSeq,
          rows.map((r) => r.seq),
        ),
      )
    for (const c of found) out.set(c.seq, c.headers as Record<string, string>)
    return out
  }
  const q = ctx.sqlite.query<{ message_seq: number; headers: string }, [number]>(
    'SELECT message_seq, headers FROM message_contents WHERE message_seq = ?1',
  )
  for (const r of rows) {
    const c = await q.get(r.seq)
    if (c) out.set(r.seq, JSON.parse(c.headers))
  }
  return out
}

export async function getMessage(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, messages, id)
  if (!row) throw notFound('Message')
  const content = (
    await ctx.db.select().from(messageContents).where(eq(messageContents.messageSeq, row.seq)).limit(1)
  )[0]
  return {
    ...presentMessage(row, content?.headers),
    subject: content?.subject ?? null,
    body_html: content?.bodyHtml ?? null,
    body_text: content?.bodyText ?? null,
    headers: content?.headers ?? {},
  }
}
