import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import type { Db } from '../client'
import type { ContactUpdate, ExistingContact, ImportedContact, ImportWriter } from '../import-rows'
import { rawRows, rawRun } from '../raw'
import { withPgTransaction } from './in-transaction'

// The CSV import's per-row writes on PostgreSQL, the twin of importWriter's prepared SQLite
// statements (db/imports.ts): the same statements, in the batch's transaction. custom_fields
// travels as JSON text, as on SQLite, cast to and from jsonb here (as text: Bun would encode a
// string bound to a jsonb parameter as a JSON string).

export function pgImportWriter(sqlite: Database): ImportWriter {
  const inTx = <T>(fn: (db: Db) => Promise<T>) => withPgTransaction(sqlite, fn)
  return {
    async insertContact(c: ImportedContact): Promise<boolean> {
      return (
        (await inTx((db) =>
          rawRun(
            db,
            sql`INSERT INTO contacts (id, client_id, email, first_name, last_name, company, phone, status, timezone, custom_fields, created_at, updated_at, client_no)
                VALUES (${c.id}, ${c.clientId}, ${c.email}, ${c.firstName}, ${c.lastName}, ${c.company}, ${c.phone}, ${c.status}, ${c.timezone}, ${c.customFields}::text::jsonb, ${c.at}, ${c.at}, ${c.clientNo})
                ON CONFLICT DO NOTHING`,
          ),
        )) === 1
      )
    },
    async clientNo(clientId: string): Promise<number | null> {
      const row = (
        await inTx((db) => rawRows<{ no: string }>(db, sql`SELECT no FROM clients WHERE id = ${clientId}`))
      )[0]
      return row ? Number(row.no) : null
    },
    async existingContact(clientNo: number, email: string): Promise<ExistingContact | null> {
      // lower(email) as the unique (client_no, lower(email)) index has it, so the index answers.
      const rows = await inTx((db) =>
        rawRows<ExistingContact>(
          db,
          sql`SELECT id, first_name, last_name, company, phone, status, timezone, custom_fields::text AS custom_fields
              FROM contacts WHERE client_no = ${clientNo} AND lower(email) = lower(${email})`,
        ),
      )
      return rows[0] ?? null
    },
    async updateContact(id: string, v: ContactUpdate, at: number): Promise<void> {
      await inTx((db) =>
        rawRun(
          db,
          sql`UPDATE contacts SET first_name = ${v[0]}, last_name = ${v[1]}, company = ${v[2]}, phone = ${v[3]}, status = ${v[4]},
                timezone = ${v[5]}, custom_fields = ${v[6]}::text::jsonb, updated_at = ${at} WHERE id = ${id}`,
        ),
      )
    },
    async addMember(clientId, listId, contactId, at) {
      return await inTx(async (db) => {
        let change: 'added' | 'confirmed' | null = null
        if (
          (await rawRun(
            db,
            sql`INSERT INTO list_members (list_id, contact_id, status, added_at, confirmed_at)
                VALUES (${listId}, ${contactId}, 'confirmed', ${at}, ${at}) ON CONFLICT DO NOTHING`,
          )) === 1
        )
          change = 'added'
        else if (
          (await rawRun(
            db,
            sql`UPDATE list_members SET status = 'confirmed', confirmed_at = ${at}
                WHERE list_id = ${listId} AND contact_id = ${contactId} AND status = 'unconfirmed'`,
          )) === 1
        )
          change = 'confirmed'
        if (change)
          await rawRun(
            db,
            sql`INSERT INTO consents (client_id, contact_id, list_id, action, source, at)
                VALUES (${clientId}, ${contactId}, ${listId}, 'subscribed', 'import', ${at})`,
          )
        return change
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
  }
}
