import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { clients } from './clients'

/**
 * When each ESP last posted an authenticated notification to a client's feedback URL
 * (`/hooks/{provider}/{token}`): the portal shows it beside the URL, so an operator sees the
 * provider's console was set up right.
 */
export const feedbackReceipts = sqliteTable(
  'feedback_receipts',
  {
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    provider: text('provider').notNull(),
    lastReceivedAt: integer('last_received_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.provider] })],
)
