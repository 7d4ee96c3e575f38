import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

/** A From identity. `verified` is not stored: it follows the client's domain. */
export const senders = sqliteTable(
  'senders',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    fromEmail: text('from_email').notNull(),
    fromName: text('from_name').notNull(),
    replyTo: text('reply_to'),
    /** Lower-case domain part of from_email, to join with domains. */
    domain: text('domain').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('senders_client_email_idx').on(t.clientId, sql`lower(${t.fromEmail})`),
    index('senders_client_idx').on(t.clientId, t.id),
  ],
)

export type SenderRow = typeof senders.$inferSelect
