import { and, count, desc, eq, lt } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { cursorPosition, DEFAULT_LIMIT, type PageRequest, pageFrom } from '../../db/paginate'
import { type ConsentRow, consents, lists } from '../../db/schema'
import { iso } from '../../lib/time'
import { findContactRow } from '../contacts/write'

export function presentConsent(row: ConsentRow, listName?: string | null) {
  return {
    contact_id: row.contactId,
    list_id: row.listId,
    ...(listName === undefined ? {} : { list_name: listName }),
    action: row.action,
    source: row.source,
    form_id: row.formId,
    ip: row.ip,
    user_agent: row.userAgent,
    consent_text: row.consentText,
    at: iso(row.at),
  }
}

/** A contact's consent records, newest first. */
export async function listConsents(ctx: Ctx, contactId: string, page: PageRequest) {
  const contact = await findContactRow(ctx, contactId)
  const limit = page.limit ?? DEFAULT_LIMIT
  const collection = `consents:${contact.id}`
  const after = cursorPosition(ctx.secretKey, page.cursor, collection, undefined, page)
  const where = eq(consents.contactId, contact.id)
  const rows = await ctx.db
    .select({ consent: consents, listName: lists.name })
    .from(consents)
    .leftJoin(lists, eq(lists.id, consents.listId))
    .where(and(where, after === null ? undefined : lt(consents.seq, Number(after))))
    .orderBy(desc(consents.seq))
    .limit(limit + 1)
  const total = (await ctx.db.select({ n: count() }).from(consents).where(where).limit(1))[0]?.n ?? 0
  return pageFrom(ctx.secretKey, rows, limit, {
    collection,
    position: (r) => String(r.consent.seq),
    present: (r) => presentConsent(r.consent, r.listName),
    total,
    query: page,
  })
}
