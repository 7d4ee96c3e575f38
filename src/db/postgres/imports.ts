import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import type { Db } from '../client'
import {
  type ContactUpdateOf,
  type ExistingContact,
  type ImportedContact,
  type ImportWriter,
  insertValues,
} from '../import-rows'
import { rawRows, rawRun } from '../raw'
import { withPgTransaction } from './in-transaction'

// The CSV import's writes on PostgreSQL, the twin of importWriter's prepared SQLite statements
// (db/imports.ts): one statement per batch instead of one per row, since each is a round trip
// here. A batch travels as one JSON parameter, unpacked by jsonb_array_elements (as jsonb, each
// row is parsed once; a json row would be read again for every field taken from it, which cost
// a third of the insert); WITH ORDINALITY keeps the file's order where it decides (which of
// two rows with one email is inserted, the order of consent rows). custom_fields stays JSON
// text, cast to and from jsonb here.

const asJson = (v: unknown) => JSON.stringify(v)

export function pgImportWriter(sqlite: Database): ImportWriter {
  const inTx = <T>(fn: (db: Db) => Promise<T>) => withPgTransaction(sqlite, fn)
  return {
    async clientNo(clientId: string): Promise<number | null> {
      const row = (
        await inTx((db) => rawRows<{ no: string }>(db, sql`SELECT no FROM clients WHERE id = ${clientId}`))
      )[0]
      return row ? Number(row.no) : null
    },
    async insertContacts(cs: readonly ImportedContact[]): Promise<Set<string>> {
      if (cs.length === 0) return new Set()
      const rows = cs.map(insertValues)
      const inserted = await inTx((db) =>
        rawRows<{ id: string }>(
          db,
          sql`INSERT INTO contacts (id, client_id, email, first_name, last_name, company, phone, status, timezone, custom_fields, created_at, updated_at, client_no)
              SELECT r->>0, r->>1, r->>2, r->>3, r->>4, r->>5, r->>6, r->>7, r->>8, (r->>9)::jsonb,
                     (r->>10)::bigint, (r->>10)::bigint, (r->>11)::bigint
              FROM jsonb_array_elements(${asJson(rows)}::text::jsonb) WITH ORDINALITY AS b(r, n)
              ORDER BY n
              ON CONFLICT DO NOTHING
              RETURNING id`,
        ),
      )
      return new Set(inserted.map((r) => r.id))
    },
    async existingContacts(clientNo: number, emails: readonly string[]) {
      const found = new Map<string, ExistingContact>()
      if (emails.length === 0) return found
      // lower(email) as the unique (client_no, lower(email)) index has it, so the index answers.
      const rows = await inTx((db) =>
        rawRows<ExistingContact & { asked: string }>(
          db,
          sql`SELECT DISTINCT ON (q.e) q.e AS asked, c.id, c.first_name, c.last_name, c.company, c.phone, c.status,
                     c.timezone, c.custom_fields::text AS custom_fields
              FROM json_array_elements_text(${asJson(emails)}::text::json) AS q(e)
              JOIN contacts c ON c.client_no = ${clientNo} AND lower(c.email) = lower(q.e)`,
        ),
      )
      for (const { asked, ...contact } of rows) found.set(asked, contact)
      return found
    },
    async updateContacts(updates: readonly ContactUpdateOf[], at: number): Promise<void> {
      if (updates.length === 0) return
      const rows = updates.map((u) => [u.id, ...u.values])
      await inTx((db) =>
        rawRun(
          db,
          sql`UPDATE contacts SET first_name = r->>1, last_name = r->>2, company = r->>3, phone = r->>4,
                status = r->>5, timezone = r->>6, custom_fields = (r->>7)::jsonb, updated_at = ${at}
              FROM jsonb_array_elements(${asJson(rows)}::text::jsonb) AS b(r)
              WHERE contacts.id = r->>0`,
        ),
      )
    },
    async addMembers(clientId: string, listId: string, contactIds: readonly string[], at: number) {
      if (contactIds.length === 0) return { added: 0, confirmed: 0 }
      const ids = [...new Set(contactIds)]
      return await inTx(async (db) => {
        const added = new Set(
          (
            await rawRows<{ contact_id: string }>(
              db,
              sql`INSERT INTO list_members (list_id, contact_id, status, added_at, confirmed_at)
                  SELECT ${listId}, q.e, 'confirmed', ${at}, ${at}
                  FROM json_array_elements_text(${asJson(ids)}::text::json) WITH ORDINALITY AS q(e, n)
                  ORDER BY n
                  ON CONFLICT DO NOTHING
                  RETURNING contact_id`,
            )
          ).map((r) => r.contact_id),
        )
        const rest = ids.filter((id) => !added.has(id))
        // An import confirms at once: someone still waiting on a double opt-in is confirmed by
        // it; one who left the list stays gone.
        const confirmed =
          rest.length === 0
            ? new Set<string>()
            : new Set(
                (
                  await rawRows<{ contact_id: string }>(
                    db,
                    sql`UPDATE list_members SET status = 'confirmed', confirmed_at = ${at}
                        WHERE list_id = ${listId} AND status = 'unconfirmed'
                          AND contact_id IN (SELECT json_array_elements_text(${asJson(rest)}::text::json))
                        RETURNING contact_id`,
                  )
                ).map((r) => r.contact_id),
              )
        const changed = ids.filter((id) => added.has(id) || confirmed.has(id))
        if (changed.length > 0)
          await rawRun(
            db,
            sql`INSERT INTO consents (client_id, contact_id, list_id, action, source, at)
                SELECT ${clientId}, q.e, ${listId}, 'subscribed', 'import', ${at}
                FROM json_array_elements_text(${asJson(changed)}::text::json) WITH ORDINALITY AS q(e, n)
                ORDER BY n`,
          )
        return { added: added.size, confirmed: confirmed.size }
      })
    },
    async bumpClientContacts(clientId: string, by: number): Promise<void> {
      await inTx((db) =>
        rawRun(db, sql`UPDATE clients SET contact_count = contact_count + ${by} WHERE id = ${clientId}`),
      )
    },
    async bumpListMembers(listId: string, confirmed: number, fromUnconfirmed: number, at: number) {
      await inTx((db) =>
        rawRun(
          db,
          sql`UPDATE lists SET member_count = member_count + ${confirmed}, unconfirmed_count = unconfirmed_count - ${fromUnconfirmed},
                updated_at = ${at} WHERE id = ${listId}`,
        ),
      )
    },
    // Autovacuum analyzes a grown table within a minute or so, but a campaign launched as the
    // import ends would be planned on the old figures: a list's copy estimated at a few hundred
    // members sorts all of them for each chunk instead of walking the key in order. ANALYZE
    // samples a bounded number of rows (~30 ms for list_members at 100,000). Of contacts only the
    // row count and two columns: its search expression made a full ANALYZE cost half a second,
    // and autovacuum's own analysis fills in the rest. ANALYZE waits behind anything holding
    // the table's maintenance lock (a manual VACUUM, an index built concurrently): it waits a
    // second at most (the process's other transactions wait behind this one), and the caller
    // goes on without fresher statistics.
    async refreshStatistics(): Promise<void> {
      await inTx(async (db) => {
        await rawRun(db, sql`SET LOCAL lock_timeout = '1s'`)
        await rawRun(db, sql`ANALYZE list_members`)
        await rawRun(db, sql`ANALYZE contacts (client_id, status)`)
      })
    },
  }
}
