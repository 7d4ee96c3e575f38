import { and, eq, type SQL } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { paginate } from '../../db/paginate'
import { type ReplyRow, replies } from '../../db/schema'
import { findVisible, listFilter } from '../../db/tenant'
import { notFound } from '../../errors'
import { iso } from '../../lib/time'
import { idFilter } from '../id-filter'
import type { ListRepliesQuery } from './inputs'

export function presentReply(row: ReplyRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    message_id: row.messageId,
    campaign_id: row.campaignId,
    journey_id: row.journeyId,
    sequence_id: row.sequenceId,
    contact_id: row.contactId,
    from: row.fromAddress,
    subject: row.subject,
    snippet: row.snippet,
    body_text: row.bodyText,
    received_at: iso(row.receivedAt),
  }
}

/** Replies received, newest first, limited to the caller's client. */
export async function listReplies(ctx: Ctx, page: ListRepliesQuery) {
  const contactId = idFilter('contact_id', 'contact', page.contact_id)
  // A contact's replies are read through its own index, the client only checked.
  const conditions: (SQL | undefined)[] = [
    listFilter(ctx.actor, replies.clientId, page.client_id, contactId !== undefined),
  ]
  const campaignId = idFilter('campaign_id', 'campaign', page.campaign_id)
  if (campaignId) conditions.push(eq(replies.campaignId, campaignId))
  // As GET /messages: an id of another client's journey or sequence matches none of the caller's.
  const journeyId = idFilter('journey_id', 'journey', page.journey_id)
  if (journeyId) conditions.push(eq(replies.journeyId, journeyId))
  const sequenceId = idFilter('sequence_id', 'sequence', page.sequence_id)
  if (sequenceId) conditions.push(eq(replies.sequenceId, sequenceId))
  if (contactId) conditions.push(eq(replies.contactId, contactId))
  return await paginate(ctx.db, ctx.secretKey, replies, replies.id, and(...conditions), page, presentReply)
}

export async function getReply(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, replies, id)
  if (!row) throw notFound('Reply')
  return presentReply(row)
}
