import { and, count, desc, inArray, lt, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { cursorSeq, DEFAULT_LIMIT, type PageRequest, pageFrom, paginate } from '../../db/paginate'
import { contactSearchCondition } from '../../db/postgres/search'
import { contacts } from '../../db/schema'
import { listFilter } from '../../db/tenant'
import { invalidField } from '../../errors'
import { parseId } from '../../lib/ids'
import { contactCount } from './counts'
import type { SearchContactsInput } from './inputs'
import { presentContact } from './present'
import { findContactRow } from './write'

export async function getContact(ctx: Ctx, id: string) {
  return presentContact(await findContactRow(ctx, id))
}

/**
 * Contacts, newest first. Without an extra filter the total comes from the maintained per-client
 * counter (counting a million rows per page would dominate the request).
 */
export async function listContacts(
  ctx: Ctx,
  /** Besides paging and client_id, any members name the `extra` filter, binding cursors to it. */
  page: PageRequest & { client_id?: string; status?: string },
  extra?: SQL,
  knownTotal?: number,
) {
  const where = and(listFilter(ctx.actor, contacts.clientId, page.client_id), extra)
  let total = knownTotal
  if (total === undefined && extra === undefined) {
    const clientId = ctx.actor.clientId ?? (page.client_id === undefined ? null : parseId(page.client_id))
    total = await contactCount(ctx.db, clientId)
  }
  return await paginate(ctx.db, ctx.secretKey, contacts, contacts.id, where, page, presentContact, total)
}

/**
 * Separators of the index's tokenizer (unicode61, Unicode 6.1 tables): anything but letters and
 * digits, and the few characters that were spacing marks in Unicode 6.1 but are letters now (New
 * Tai Lue vowel and tone signs, two Vedic signs). A term must be one token of the index: the
 * index keeps no positions (migration 0027, detail='none'), so FTS5 refuses a quoted term the
 * tokenizer splits in two as a phrase query (test/services/contacts/fts-query.test.ts checks
 * every code point against the bundled SQLite).
 */
const SEPARATORS = /(?:[^\p{L}\p{N}]|[\u19b0-\u19c0\u19c8\u19c9\u1cf2\u1cf3])+/u

/**
 * The FTS5 query for a search string: every term must match the prefix of a word. Terms are
 * split with the same separators as the indexed text (SEPARATORS), so a whole address such as
 * ann.lee@acme.io becomes ann* lee* acme* io*.
 */
export function ftsQuery(query: string): string | null {
  const tokens = query.toLowerCase().split(SEPARATORS).filter(Boolean).slice(0, 16)
  return tokens.length ? tokens.map((t) => `"${t}"*`).join(' AND ') : null
}

/**
 * Search lets the FTS index drive: matching rowids come out of FTS5 newest first (rowid = seq,
 * which grows with creation), each checked against the tenant; the cursor is the last seq.
 */
export async function searchContacts(ctx: Ctx, input: SearchContactsInput) {
  const match = ftsQuery(input.query)
  if (!match) throw invalidField('query', 'must contain at least one letter or digit')
  const limit = input.limit ?? DEFAULT_LIMIT
  // Bound to the search as run (the terms, so "Ann" and "ann" share cursors) and its client.
  const query = { match, client_id: input.client_id }
  const after = cursorSeq(ctx.secretKey, input.cursor, 'contact_search', query)
  const tenant = listFilter(ctx.actor, contacts.clientId, input.client_id)
  if (DIALECT === 'postgres') return await searchContactsPg(ctx, input.query, query, after, tenant, limit)
  const base = sql`FROM contacts_fts JOIN contacts ON contacts.seq = contacts_fts.rowid WHERE contacts_fts MATCH ${match}${tenant ? sql` AND ${tenant}` : sql``}`
  const seqs = (
    await ctx.db.all<{ seq: number }>(
      sql`SELECT contacts.seq AS seq ${base}${after === null ? sql`` : sql` AND contacts_fts.rowid < ${after}`} ORDER BY contacts_fts.rowid DESC LIMIT ${limit + 1}`,
    )
  ).map((r) => r.seq)
  const total = (await ctx.db.all<{ n: number }>(sql`SELECT count(*) AS n ${base}`))[0]?.n ?? 0
  // The page and its cursor over the seqs; only the page's rows are read.
  const page = pageFrom(ctx.secretKey, seqs, limit, {
    collection: 'contact_search',
    position: String,
    present: (seq) => seq,
    total,
    query,
  })
  return { data: await pageRows(ctx, page.data), pagination: page.pagination }
}

/** The contacts of a page of seqs, newest first; only the page's rows are read. */
async function pageRows(ctx: Ctx, seqs: number[]) {
  const rows = seqs.length
    ? await ctx.db.select().from(contacts).where(inArray(contacts.seq, seqs)).orderBy(desc(contacts.seq))
    : []
  return rows.map(presentContact)
}

/**
 * Search on PostgreSQL: the same terms matched through the contacts' search index
 * (postgres/search.ts), newest first by seq, with the same cursors as FTS5's.
 */
async function searchContactsPg(
  ctx: Ctx,
  text: string,
  query: object,
  after: number | null,
  tenant: SQL | undefined,
  limit: number,
) {
  const where = and(contactSearchCondition(text)!, tenant)
  const seqs = (
    await ctx.db
      .select({ seq: contacts.seq })
      .from(contacts)
      .where(and(where, after === null ? undefined : lt(contacts.seq, after)))
      .orderBy(desc(contacts.seq))
      .limit(limit + 1)
  ).map((r) => r.seq)
  const total = (await ctx.db.select({ n: count() }).from(contacts).where(where))[0]?.n ?? 0
  const page = pageFrom(ctx.secretKey, seqs, limit, {
    collection: 'contact_search',
    position: String,
    present: (seq) => seq,
    total,
    query,
  })
  return { data: await pageRows(ctx, page.data), pagination: page.pagination }
}
