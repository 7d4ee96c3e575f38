import { and, desc, eq, lt, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { cursorPosition, pageFrom } from '../../db/paginate'
import { likeIgnoringAsciiCase } from '../../db/postgres/like'
import { messageContents, messages } from '../../db/schema'
import { listFilter } from '../../db/tenant'
import { mapInOrder } from '../../lib/in-order'
import { escapeLike } from '../../lib/like'
import { idFilter } from '../id-filter'
import type { OutboxQuery } from './inputs'
import { presentMessage } from './read'

// The portal's outbox viewer (like Mailpit): messages newest first with their subject, filtered
// by campaign, status, channel and recipient. Portal-only (DESIGN names no such REST filter):
// GET /messages keeps its documented query. No total: a page reads limit + 1 rows by id from the
// cursor (a recipient search walks the client's index until the page is full, never counts).

export async function listOutbox(ctx: Ctx, q: OutboxQuery) {
  const limit = q.limit ?? 50
  const conditions: (SQL | undefined)[] = [listFilter(ctx.actor, messages.clientId, q.client_id)]
  const campaignId = idFilter('campaign_id', 'campaign', q.campaign_id)
  if (campaignId) conditions.push(eq(messages.campaignId, campaignId))
  if (q.status) conditions.push(eq(messages.status, q.status))
  if (q.channel) conditions.push(eq(messages.channel, q.channel))
  if (q.to) {
    const pattern = `%${escapeLike(q.to)}%`
    conditions.push(
      DIALECT === 'postgres'
        ? likeIgnoringAsciiCase(sql`${messages.to}`, pattern)
        : sql`${messages.to} LIKE ${pattern} ESCAPE '\\'`,
    )
  }
  const after = cursorPosition(ctx.secretKey, q.cursor, 'messages', undefined, q)
  if (after !== null) conditions.push(lt(messages.id, after))
  const rows = await ctx.db
    .select()
    .from(messages)
    .where(and(...conditions))
    .orderBy(desc(messages.id))
    .limit(limit + 1)
  const subject =
    DIALECT === 'postgres'
      ? {
          get: async (seq: number) =>
            (
              await ctx.db
                .select({ subject: messageContents.subject })
                .from(messageContents)
                .where(eq(messageContents.messageSeq, seq))
                .limit(1)
            )[0] ?? null,
        }
      : ctx.sqlite.query<{ subject: string | null }, [number]>(
          'SELECT subject FROM message_contents WHERE message_seq = ?1',
        )
  const page = pageFrom(ctx.secretKey, rows, limit, {
    collection: 'messages',
    position: (r) => r.id,
    present: (r) => r,
    query: q,
  })
  const data = await mapInOrder(page.data, async (r) => ({
    ...presentMessage(r),
    subject: (await subject.get(r.seq))?.subject ?? null,
  }))
  return { data, next_cursor: page.pagination.next_cursor }
}
