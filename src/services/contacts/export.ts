import { stringify } from 'csv-stringify/sync'
import { and, desc, lt, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { rawRows } from '../../db/raw'
import { contacts } from '../../db/schema'
import { listFilter } from '../../db/tenant'
import { spreadsheetCell } from '../../lib/spreadsheet-cell'
import { iso } from '../../lib/time'
import type { Download } from '../verbs/define'
import type { ExportContactsInput } from './inputs'

const PAGE = 2000
const FIXED = [
  'id',
  'client_id',
  'email',
  'first_name',
  'last_name',
  'company',
  'phone',
  'status',
  'timezone',
  'created_at',
  'updated_at',
]

/**
 * Streams the caller's contacts as CSV, newest first, a page at a time (never the whole set in
 * memory). Each custom field gets its own column, so the file imports back as it was. Cells a
 * spreadsheet would run as formulas are written as text unless `raw` asks for them as stored
 * (the importer reads a phone's leading apostrophe as text, so the default file imports back too).
 */
export async function exportContacts(ctx: Ctx, query: ExportContactsInput): Promise<Download> {
  const where = listFilter(ctx.actor, contacts.clientId, query.client_id)
  // The keys in SQLite's order (bytewise; "C" on PostgreSQL, not the locale's).
  const keys =
    DIALECT === 'postgres'
      ? sql`SELECT DISTINCT j.key COLLATE "C" AS key FROM contacts, jsonb_each(contacts.custom_fields) j`
      : sql`SELECT DISTINCT j.key AS key FROM contacts, json_each(contacts.custom_fields) j`
  const customKeys = (
    await rawRows<{ key: string }>(ctx.db, sql`${keys} ${where ? sql`WHERE ${where}` : sql``} ORDER BY 1`)
  ).map((r) => r.key)
  const cell = query.raw ? (v: string) => v : spreadsheetCell
  let after: string | null = null
  let headerSent = false
  const encoder = new TextEncoder()
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true
        controller.enqueue(encoder.encode(stringify([[...FIXED, ...customKeys].map(cell)], { bom: true })))
        return
      }
      const rows = await ctx.db
        .select()
        .from(contacts)
        .where(and(where, after === null ? undefined : lt(contacts.id, after)))
        .orderBy(desc(contacts.id))
        .limit(PAGE)
      if (rows.length === 0) return controller.close()
      after = rows.at(-1)!.id
      const records = rows.map((r) =>
        [
          r.id,
          r.clientId,
          r.email,
          r.firstName ?? '',
          r.lastName ?? '',
          r.company ?? '',
          r.phone ?? '',
          r.status,
          r.timezone ?? '',
          iso(r.createdAt),
          iso(r.updatedAt),
          ...customKeys.map((k) => {
            const v = r.customFields[k]
            return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)
          }),
        ].map(cell),
      )
      controller.enqueue(encoder.encode(stringify(records)))
    },
  })
  return { kind: 'download', contentType: 'text/csv; charset=utf-8', filename: 'contacts.csv', body: stream }
}
