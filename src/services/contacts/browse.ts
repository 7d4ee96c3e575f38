import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { cursorPosition, DEFAULT_LIMIT, pageFrom } from '../../db/paginate'
import { rawRows } from '../../db/raw'
import { contacts, events } from '../../db/schema'
import { listFilter, visibleTo } from '../../db/tenant'
import { iso } from '../../lib/time'
import { FILTERED_COUNT_CAP, membersPage } from '../lists/members'
import { findListRow } from '../lists/records'
import type { BrowseContactsInput, ContactActivityInput } from './inputs'
import { listContacts } from './read'
import { findContactRow } from './write'

// Portal reads over contacts that REST does not name: the table filtered by status and list,
// and one contact's event timeline. Both keep to indexes (contacts_client_status_idx, the list's
// primary key, events_contact_type_idx), so they stay fast at a million contacts.

/**
 * Contacts, newest first, optionally only one status and/or the members of one list (walked
 * through the list's key, see membersPage). The total is the list's maintained member_count when
 * only the list narrows; with a status it is exact up to FILTERED_COUNT_CAP (then CAP + 1).
 */
export async function browseContacts(ctx: Ctx, input: BrowseContactsInput) {
  const { status, list_id, ...page } = input
  if (list_id !== undefined) return await membersPage(ctx, await findListRow(ctx, list_id), page, status)
  if (status === undefined) return await listContacts(ctx, page)
  const where = and(listFilter(ctx.actor, contacts.clientId, page.client_id), eq(contacts.status, status))
  // Counted up to FILTERED_COUNT_CAP + 1 through contacts_client_status_idx: "subscribed" is most
  // of a million contacts, and an exact count of it would cost more than the page.
  // (A bigint count is text on PostgreSQL, whose subqueries need a name.)
  const counted = Number(
    (
      await rawRows<{ n: number }>(
        ctx.db,
        sql`SELECT count(*) AS n FROM (SELECT 1 FROM contacts WHERE ${where} LIMIT ${FILTERED_COUNT_CAP + 1}) AS capped`,
      )
    )[0]?.n ?? 0,
  )
  // status rides along in the request so the page's cursors are bound to it (listContacts reads
  // only the paging members and client_id).
  return await listContacts(ctx, { ...page, status }, eq(contacts.status, status), counted)
}

/** What happened to one contact (events, newest first), paginated by (occurred_at, seq). */
export async function contactActivity(ctx: Ctx, input: ContactActivityInput) {
  const contact = await findContactRow(ctx, input.id)
  const limit = input.limit ?? DEFAULT_LIMIT
  const position = cursorPosition(ctx.secretKey, input.cursor, `contact_activity:${contact.id}`, /^\d+:\d+$/)
  const [at, seq] = position === null ? [] : position.split(':').map(Number)
  const after = position === null ? null : { at: at!, seq: seq! }
  const rows = await ctx.db
    .select()
    .from(events)
    .where(
      and(
        eq(events.contactId, contact.id),
        // Read through the contact's index; the client is only checked.
        visibleTo(ctx.actor, events.clientId, true),
        after === null
          ? undefined
          : or(
              lt(events.occurredAt, after.at),
              and(eq(events.occurredAt, after.at), lt(events.seq, after.seq)),
            ),
      ),
    )
    .orderBy(desc(events.occurredAt), desc(events.seq))
    .limit(limit + 1)
  return pageFrom(ctx.secretKey, rows, limit, {
    collection: `contact_activity:${contact.id}`,
    position: (e) => `${e.occurredAt}:${e.seq}`,
    present: (e) => ({
      id: e.id,
      type: e.type,
      occurred_at: iso(e.occurredAt),
      message_id: e.messageId,
      campaign_id: e.campaignId,
      journey_id: e.journeyId,
      sequence_id: e.sequenceId,
      data: e.data,
    }),
  })
}
