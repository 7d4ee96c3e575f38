import { and, asc, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { consents, events, listMembers, lists, messages, replies, suppressions } from '../../db/schema'
import { iso, isoOrNull } from '../../lib/time'
import { presentConsent } from '../consents/read'
import { presentMessage } from '../messages/read'
import { presentReply } from '../replies/read'
import { presentSuppression } from '../suppressions/records'
import { presentContact } from './present'
import { findContactRow } from './write'

/**
 * Rows per section of an access export. A person with more messages or events than this is
 * unusual; the section then says `truncated` rather than the answer growing without bound.
 */
export const ACCESS_EXPORT_SECTION_LIMIT = 10_000

const bounded = <T>(rows: T[]) => ({
  items: rows.slice(0, ACCESS_EXPORT_SECTION_LIMIT),
  truncated: rows.length > ACCESS_EXPORT_SECTION_LIMIT,
})

/**
 * Everything held about one person (a data subject's access request): the contact's fields, list
 * memberships, consent records, messages (without their bodies), events, replies and the
 * suppressions of their address, oldest first within each section.
 */
export async function accessExport(ctx: Ctx, id: string) {
  const contact = await findContactRow(ctx, id)
  const take = ACCESS_EXPORT_SECTION_LIMIT + 1
  const memberships = await ctx.db
    .select({ member: listMembers, name: lists.name })
    .from(listMembers)
    .innerJoin(lists, eq(lists.id, listMembers.listId))
    .where(eq(listMembers.contactId, contact.id))
    .orderBy(asc(listMembers.addedAt))
    .limit(take)
  const consentRows = await ctx.db
    .select()
    .from(consents)
    .where(eq(consents.contactId, contact.id))
    .orderBy(asc(consents.seq))
    .limit(take)
  const messageRows = await ctx.db
    .select()
    .from(messages)
    .where(eq(messages.contactId, contact.id))
    .orderBy(asc(messages.seq))
    .limit(take)
  const eventRows = await ctx.db
    .select()
    .from(events)
    .where(eq(events.contactId, contact.id))
    .orderBy(asc(events.occurredAt))
    .limit(take)
  const replyRows = await ctx.db
    .select()
    .from(replies)
    .where(eq(replies.contactId, contact.id))
    .orderBy(asc(replies.id))
    .limit(take)
  const suppressionRows = await ctx.db
    .select()
    .from(suppressions)
    .where(
      and(eq(suppressions.clientId, contact.clientId), eq(suppressions.email, contact.email.toLowerCase())),
    )
  const membershipSection = bounded(memberships)
  const messageSection = bounded(messageRows)
  return {
    exported_at: iso(ctx.clock.now()),
    contact: presentContact(contact),
    memberships: {
      ...membershipSection,
      items: membershipSection.items.map((m) => ({
        list_id: m.member.listId,
        list_name: m.name,
        status: m.member.status,
        added_at: iso(m.member.addedAt),
        confirmed_at: isoOrNull(m.member.confirmedAt),
      })),
    },
    consents: { ...bounded(consentRows.map((r) => presentConsent(r))) },
    messages: {
      ...messageSection,
      items: messageSection.items.map((m) => presentMessage(m)),
    },
    events: bounded(
      eventRows.map((e) => ({
        id: e.id,
        type: e.type,
        occurred_at: iso(e.occurredAt),
        message_id: e.messageId,
        campaign_id: e.campaignId,
        data: e.data,
      })),
    ),
    replies: bounded(replyRows.map(presentReply)),
    suppressions: bounded(suppressionRows.map(presentSuppression)),
  }
}
