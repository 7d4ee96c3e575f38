import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

export const SUPPRESSION_SOURCES = ['api', 'unsubscribe', 'hard_bounce', 'complaint', 'admin'] as const
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number]

/** One row per (client, lower-cased email). */
export const suppressions = sqliteTable(
  'suppressions',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    email: text('email').notNull(),
    reason: text('reason'),
    source: text('source', { enum: SUPPRESSION_SOURCES }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('suppressions_client_email_idx').on(t.clientId, t.email),
    index('suppressions_client_idx').on(t.clientId, t.id),
  ],
)

export type SuppressionRow = typeof suppressions.$inferSelect
