import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { CONTACT_STATUSES } from '../../lib/enums'
import { clients } from './clients'

/**
 * `seq` is an explicit INTEGER PRIMARY KEY (the rowid) so the FTS5 index, which is keyed by
 * rowid, stays valid across VACUUM and backups; the API id is the UUIDv7 `id`.
 */
export const contacts = sqliteTable(
  'contacts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    /** The owning client's clients.no: the integer head of the unique email key (smaller than the id). */
    clientNo: integer('client_no').notNull().default(0),
    email: text('email').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    company: text('company'),
    phone: text('phone'),
    status: text('status', { enum: CONTACT_STATUSES }).notNull().default('subscribed'),
    timezone: text('timezone'),
    /** Replied STOP by SMS: no SMS, voice or WhatsApp is sent until START. */
    smsOptOut: integer('sms_opt_out', { mode: 'boolean' }).notNull().default(false),
    customFields: text('custom_fields', { mode: 'json' })
      .$type<Record<string, unknown>>()
      .notNull()
      .default({}),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('contacts_id_idx').on(t.id),
    uniqueIndex('contacts_client_no_email_idx').on(t.clientNo, sql`lower(${t.email})`),
    index('contacts_client_id_idx').on(t.clientId, t.id),
    // The portal's status filter: newest first within a status, and its count, without a scan.
    index('contacts_client_status_idx').on(t.clientId, t.status, t.id),
    // An inbound text (STOP, START, a reply) finds the client's contacts with that number.
    index('contacts_client_phone_idx')
      .on(t.clientId, t.phone)
      .where(sql`${t.phone} IS NOT NULL`),
  ],
)

export type ContactRow = typeof contacts.$inferSelect
