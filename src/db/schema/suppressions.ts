import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { SUPPRESSION_SOURCES } from '../../lib/enums'
import { clients } from './clients'

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
